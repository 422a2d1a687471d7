import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { DelayLine } from '../../src/link/delay-line.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import type { EndKind } from '../../src/stage/types.js';

const US = 1000;
const MS = 1_000_000;

function setup(opts: { delayNs?: number | (() => number); bps?: number; notBeforeNs?: number } = {}) {
  const clock = new FakeClock();
  const scheduler = new ManualScheduler(clock);
  const delivered: { data: string; endOffset: number; atNs: number }[] = [];
  const ends: { kind: EndKind; atNs: number }[] = [];
  const d = opts.delayNs ?? 0;
  const line = new DelayLine({
    scheduler,
    sampleDelayNs: typeof d === 'function' ? d : () => d,
    bandwidthBps: () => opts.bps ?? 0,
    deliver: (chunks, endOffset, atNs) =>
      delivered.push({ data: Buffer.concat(chunks).toString(), endOffset, atNs }),
    onEnd: (kind, atNs) => ends.push({ kind, atNs }),
    notBeforeNs: opts.notBeforeNs,
  });
  return { clock, scheduler, line, delivered, ends };
}

describe('DelayLine', () => {
  it('delivers immediately when there is no delay and nothing queued', () => {
    const { line, delivered } = setup();
    line.push(Buffer.from('abc'), 0);
    expect(delivered).toEqual([{ data: 'abc', endOffset: 3, atNs: 0 }]);
    expect(line.pendingBytes).toBe(0);
  });

  it('holds each chunk for exactly the one-way delay after its arrival', () => {
    const { clock, scheduler, line, delivered } = setup({ delayNs: 100 * US });
    line.push(Buffer.from('a'), 0);
    clock.setNs(30 * US);
    line.push(Buffer.from('bc'), 30 * US);
    expect(delivered).toEqual([]);
    expect(line.pendingBytes).toBe(3);
    scheduler.runUntil(99 * US);
    expect(delivered).toEqual([]);
    scheduler.runUntil(100 * US);
    expect(delivered).toEqual([{ data: 'a', endOffset: 1, atNs: 100 * US }]);
    scheduler.runUntil(1 * MS);
    expect(delivered[1]).toEqual({ data: 'bc', endOffset: 3, atNs: 130 * US });
    expect(line.pendingBytes).toBe(0);
  });

  it('never lets a chunk overtake the one before it, whatever the jitter says', () => {
    // Delays shrink for each chunk: without the order rule later chunks would leave first.
    const delays = [500, 400, 300, 200, 100].map((x) => x * US);
    let i = 0;
    const { clock, scheduler, line, delivered } = setup({ delayNs: () => delays[i++]! });
    for (let k = 0; k < 5; k++) {
      clock.setNs(k * 10 * US);
      line.push(Buffer.from(String(k)), k * 10 * US);
    }
    scheduler.runUntil(10 * MS);
    expect(delivered.map((d) => d.data).join('')).toBe('01234');
    // all of them wait for the first one's due time (500 us), none leaves earlier
    for (const d of delivered) expect(d.atNs).toBe(500 * US);
  });

  it('delivers everything that is due in one batch with the end offset', () => {
    const { clock, scheduler, line, delivered } = setup({ delayNs: 50 * US });
    line.push(Buffer.from('xx'), 0);
    clock.setNs(1);
    line.push(Buffer.from('yyy'), 1);
    scheduler.runUntil(60 * US);
    expect(delivered.length).toBeLessThanOrEqual(2);
    expect(delivered.map((d) => d.data).join('')).toBe('xxyyy');
    expect(delivered.at(-1)!.endOffset).toBe(5);
  });

  it('adds serialization delay at the configured bandwidth, one chunk after another', () => {
    // 8 Mbit/s = 1 byte per microsecond
    const { scheduler, line, delivered } = setup({ delayNs: 0, bps: 8_000_000 });
    line.push(Buffer.alloc(1000, 97), 0);
    line.push(Buffer.alloc(500, 98), 0);
    scheduler.runUntil(10 * MS);
    expect(delivered.map((d) => d.atNs)).toEqual([1000 * US, 1500 * US]);
  });

  it('passes FIN behind the data, after the delay', () => {
    const { scheduler, line, delivered, ends } = setup({ delayNs: 100 * US });
    line.push(Buffer.from('last'), 0);
    line.end('end', 0);
    line.push(Buffer.from('ignored after end'), 0);
    scheduler.runUntil(99 * US);
    expect(ends).toEqual([]);
    scheduler.runUntil(200 * US);
    expect(delivered.map((d) => d.data)).toEqual(['last']);
    expect(ends).toEqual([{ kind: 'end', atNs: 100 * US }]);
  });

  it('sends nothing before the handshake is done, then adds the one-way delay', () => {
    const { scheduler, line, delivered } = setup({ delayNs: 100 * US, notBeforeNs: 200 * US });
    line.push(Buffer.from('hello'), 0);
    scheduler.runUntil(250 * US);
    expect(delivered).toEqual([]);
    scheduler.runUntil(1 * MS);
    expect(delivered[0]!.atNs).toBe(300 * US);
  });

  it('reports how late each scheduled chunk left', () => {
    const clock = new FakeClock();
    const scheduler = new ManualScheduler(clock);
    const late: number[] = [];
    const line = new DelayLine({
      scheduler,
      sampleDelayNs: () => 100 * US,
      bandwidthBps: () => 0,
      deliver: () => {},
      onEnd: () => {},
      onLateness: (ns) => late.push(ns),
    });
    line.push(Buffer.from('a'), 0);
    line.push(Buffer.from('b'), 0);
    clock.setNs(103 * US); // the timer fires 3 us late
    scheduler.runUntil(103 * US);
    expect(late).toEqual([3 * US, 3 * US]);
  });

  it('drops what is queued on destroy and delivers nothing afterwards', () => {
    const { scheduler, line, delivered } = setup({ delayNs: 100 * US });
    line.push(Buffer.from('gone'), 0);
    line.destroy();
    scheduler.runUntil(1 * MS);
    expect(delivered).toEqual([]);
    expect(line.pendingBytes).toBe(0);
  });

  it('keeps byte order and totals across many chunks with random delays', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const { clock, scheduler, line, delivered } = setup({ delayNs: () => Math.floor(rnd() * 300 * US) });
    let expected = '';
    for (let k = 0; k < 2000; k++) {
      clock.setNs(k * 7 * US);
      scheduler.runUntil(k * 7 * US);
      const s = `<${k}>`;
      expected += s;
      line.push(Buffer.from(s), k * 7 * US);
    }
    scheduler.runUntil(100 * MS);
    expect(delivered.map((d) => d.data).join('')).toBe(expected);
    for (let k = 1; k < delivered.length; k++) expect(delivered[k]!.atNs).toBeGreaterThanOrEqual(delivered[k - 1]!.atNs);
    expect(delivered.at(-1)!.endOffset).toBe(Buffer.byteLength(expected));
  });

  it('holds more chunks than its ring starts with, wrapping and growing, in order', () => {
    const { clock, scheduler, line, delivered } = setup({ delayNs: 100 * US });
    let expected = '';
    // Half-drain between bursts so the ring's head has moved when it must grow.
    for (let burst = 0; burst < 4; burst++) {
      for (let k = 0; k < 13 * (burst + 1); k++) {
        const s = `${burst}.${k};`;
        expected += s;
        line.push(Buffer.from(s), clock.nowNs());
      }
      clock.advanceNs(60 * US);
      scheduler.runUntil(clock.nowNs() + 50 * US);
    }
    scheduler.runUntil(10 * MS);
    expect(delivered.map((d) => d.data).join('')).toBe(expected);
    expect(line.queued).toBe(0);
    expect(line.pendingBytes).toBe(0);
  });

  it('counts each chunk\'s added time from its read\'s estimated wait, timed or not', () => {
    const clock = new FakeClock();
    const scheduler = new ManualScheduler(clock);
    const added: number[] = [];
    let waitNs = 0;
    let delayNs = 0;
    const line = new DelayLine({
      scheduler,
      sampleDelayNs: () => delayNs,
      bandwidthBps: () => 0,
      deliver: () => {},
      onEnd: () => {},
      arrivalWaitNs: () => waitNs,
      onAdded: (ns) => added.push(ns),
    });
    waitNs = 7 * US;
    line.push(Buffer.from('now'), 0); // no delay: leaves at once, its read's wait is all it added
    delayNs = 100 * US;
    waitNs = 40 * US;
    line.push(Buffer.from('later'), 0);
    waitNs = 0;
    clock.setNs(105 * US); // 5 us late
    scheduler.runUntil(105 * US);
    expect(added).toEqual([7 * US, 45 * US]);
  });
});
