/** The dashboard's window on a made-up clock: rates and percentiles are the newest reading less the oldest in 10 s. */
import { describe, expect, it } from 'vitest';
import { StatsWindow, WINDOW_NS } from '../../src/dashboard/stats-window.js';
import { LatencyHistogram } from '../../src/numbers/histogram.js';
import { newCounters } from '../../src/tap/counters.js';
import type { Counters } from '../../src/stats/types.js';

const S = 1e9;

function counters(commands: number, bytesUp = 0): Counters {
  return { ...newCounters(), commands, replies: commands, roundTrips: commands, bytesUp, bytesDown: 2 * bytesUp };
}

describe('StatsWindow', () => {
  it('rates are the counters\' growth over the time between the oldest and newest reading', () => {
    const w = new StatsWindow();
    expect(w.add(0, counters(100), [], []).rates.commands).toBe(0);
    const f = w.add(2 * S, counters(300, 4000), [], []);
    expect(f.windowMs).toBe(2000);
    expect(f.rates).toMatchObject({ commands: 100, replies: 100, roundTrips: 100, bytesUp: 2000, bytesDown: 4000 });
  });

  it('keeps 10 s: older readings drop out, and a burst leaves the rate when it is older than that', () => {
    const w = new StatsWindow();
    w.add(0, counters(0), [], []);
    w.add(1 * S, counters(1000), [], []); // a burst in the first second
    for (let t = 2; t <= 11; t++) w.add(t * S, counters(1000), [], []);
    const f = w.add(11.5 * S, counters(1000), [], []);
    // The base is the newest reading at or before the window's start (1 s here): 10 s plus up to one step.
    expect(f.windowMs).toBe(WINDOW_NS / 1e6 + 500);
    expect(f.rates.commands).toBe(0);
  });

  it('per-command percentiles count only what was recorded in the window', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 1000; i++) h.record(100_000); // 100 ms each, before the window
    const w = new StatsWindow();
    w.add(0, counters(1000), [], [['GET', h]]);
    for (let i = 0; i < 100; i++) h.record(500);
    const f = w.add(1 * S, counters(1100), [], [['GET', h]]);
    expect(f.commands).toEqual([{ name: 'GET', count: 100, perSecond: 100, p50Us: 500, p99Us: 500, maxUs: 500 }]);
    expect(h.count).toBe(1100); // the live histogram is read, never changed
  });

  it('busiest commands first; one with nothing in the window is left out', () => {
    const get = new LatencyHistogram();
    const set = new LatencyHistogram();
    get.record(10);
    const w = new StatsWindow();
    w.add(0, counters(1), [], [['GET', get], ['SET', set]]);
    for (let i = 0; i < 3; i++) set.record(20);
    const f = w.add(1 * S, counters(4), [], [['GET', get], ['SET', set]]);
    expect(f.commands.map((c) => [c.name, c.count])).toEqual([['SET', 3]]);
  });

  it('after a reset (counters fell) it counts from zero at the last reading instead of subtracting', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 50; i++) h.record(1000);
    const w = new StatsWindow();
    w.add(0, counters(500), [], [['GET', h]]);
    h.reset();
    for (let i = 0; i < 5; i++) h.record(300);
    const f = w.add(1 * S, counters(5), [], [['GET', h]]);
    expect(f.windowMs).toBe(1000);
    expect(f.rates.commands).toBe(5);
    expect(f.commands).toEqual([{ name: 'GET', count: 5, perSecond: 5, p50Us: 300, p99Us: 300, maxUs: 300 }]);
    expect(w.add(2 * S, counters(15), [], [['GET', h]]).rates.commands).toBe(7.5);
  });

  it('a reset after which commands grew past their old count is still one: the bytes fell, so it counts from zero', () => {
    const w = new StatsWindow();
    w.add(0, counters(0), [], []);
    w.add(1 * S, counters(4, 1_000_000), [], []); // a few large SETs
    const f = w.add(2 * S, counters(50, 1000), [], []); // reset, then 50 small commands
    expect(f.windowMs).toBe(1000);
    expect(f.rates).toMatchObject({ commands: 50, bytesUp: 1000, bytesDown: 2000 });
  });

  it('replies and bytes taken back at a close are no reset: the window goes on, and no rate goes below zero', () => {
    const back = { ...counters(100, 1000), replies: 98, bytesDown: 1990 }; // 2 replies held when their client went
    const w = new StatsWindow();
    w.add(0, counters(0), [], []);
    w.add(1 * S, counters(100, 1000), [], []);
    const f = w.add(2 * S, back, [], []);
    expect(f.windowMs).toBe(2000);
    expect(f.rates).toMatchObject({ commands: 50, replies: 49, bytesDown: 995 });
    const quiet = new StatsWindow();
    quiet.add(0, counters(100, 1000), [], []);
    expect(quiet.add(1 * S, back, [], []).rates).toMatchObject({ commands: 0, replies: 0, bytesDown: 0 });
  });

  it('reset(at) starts the window at that time, even when every counter grew past its old value by the next reading', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 3; i++) h.record(9000);
    const w = new StatsWindow();
    w.add(0, counters(0), [], []);
    w.add(1 * S, counters(3, 10), [], [['GET', h]]);
    w.reset(1.5 * S);
    h.reset();
    for (let i = 0; i < 20; i++) h.record(200);
    const f = w.add(2 * S, counters(20, 100), [], [['GET', h]]);
    expect(f.windowMs).toBe(500);
    expect(f.rates).toMatchObject({ commands: 40, bytesUp: 200 });
    expect(f.commands).toEqual([{ name: 'GET', count: 20, perSecond: 40, p50Us: 200, p99Us: 200, maxUs: 200 }]);
  });

  it('a node that left and one that joined between two readings: each row is its own node less its own earlier reading', () => {
    const w = new StatsWindow();
    w.add(0, counters(550), [counters(50), counters(500)], [], ['a', 'b']);
    const f = w.add(2 * S, counters(670), [counters(110), counters(10)], [], ['a', 'c']);
    // c joined inside the window: its counters started at zero.
    expect(f.nodeRates.map((r) => r.commands)).toEqual([30, 5]);
    expect(f.rates.commands).toBe(60);
  });

  it('a node that joins does not make the totals\' rates every count since start', () => {
    const w = new StatsWindow();
    w.add(0, counters(1_000_000), [counters(1_000_000)], [], ['a']);
    const f = w.add(1 * S, counters(1_000_100), [counters(1_000_050), counters(50)], [], ['a', 'b']);
    expect(f.windowMs).toBe(1000);
    expect(f.rates.commands).toBe(100);
    expect(f.nodeRates.map((r) => r.commands)).toEqual([50, 50]);
  });

  it('a node that left with its histograms: the commands\' window starts again, not every command since start in it', () => {
    // Two nodes' GETs merged, as a cluster proxy's commandLatencyUs; the totals keep a node that left.
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    for (let i = 0; i < 1000; i++) b.record(100_000);
    const merged = (...hs: LatencyHistogram[]): [string, LatencyHistogram][] => {
      const h = new LatencyHistogram();
      for (const x of hs) h.add(x);
      return [['GET', h]];
    };
    const w = new StatsWindow();
    w.add(0, counters(1000), [], merged(a, b));
    for (let i = 0; i < 10; i++) a.record(300);
    expect(w.add(1 * S, counters(1010), [], merged(a)).commands).toEqual([]); // b left
    for (let i = 0; i < 20; i++) a.record(200);
    expect(w.add(2 * S, counters(1030), [], merged(a)).commands).toEqual([{ name: 'GET', count: 20, perSecond: 20, p50Us: 200, p99Us: 200, maxUs: 200 }]);
  });

  it('gives each node its own rates, in the stats block\'s order', () => {
    const w = new StatsWindow();
    w.add(0, counters(0), [counters(0), counters(0)], []);
    const f = w.add(2 * S, counters(30), [counters(10), counters(20, 100)], []);
    expect(f.nodeRates.map((r) => [r.commands, r.bytesUp])).toEqual([[5, 0], [10, 50]]);
  });
});
