import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/clock.js';
import { OpenLoopDispatcher, type DispatcherOptions, type OpenLoopBatch } from '../../../src/workload/open-loop/dispatcher.js';
import { punctualCorrected } from '../../../src/workload/open-loop/punctual.js';
import { buildArrivalSchedule } from '../../../src/workload/open-loop/schedule.js';

const MS = 1e6;

/** HDR reports the highest value of a value's bucket: exact below 2048 us, within 0.1% above. */
function expectUs(actual: number, exact: number): void {
  expect(actual).toBeGreaterThanOrEqual(exact);
  expect(actual).toBeLessThanOrEqual(Math.ceil(exact * 1.001));
}

/**
 * A simulated link with fake time: every batch is answered serviceNs after it is sent (a
 * deterministic server, one batch at a time per connection). Runs the dispatcher to the end and
 * returns it. `lateNs` delays every advance() past its wake time (a slow driver).
 */
function simulate(
  opts: Omit<DispatcherOptions, 'clock' | 'send' | 'startNs'>,
  serviceNs: number,
  extra: { lateNs?: number; stopAtNs?: number } = {},
): { d: OpenLoopDispatcher; sent: OpenLoopBatch[] } {
  const clock = new FakeClock(0);
  const replies: { atNs: number; batch: OpenLoopBatch }[] = [];
  const sent: OpenLoopBatch[] = [];
  const d = new OpenLoopDispatcher({
    ...opts,
    clock,
    startNs: 0,
    send: (batch) => {
      // A snapshot: the dispatcher reuses a batch once it is answered.
      sent.push({ ...batch, dues: [...batch.dues] });
      replies.push({ atNs: clock.nowNs() + serviceNs, batch });
    },
  });
  d.advance();
  let stopped = false;
  for (let guard = 0; guard < 1e6 && !d.finished; guard++) {
    const wake = d.nextWakeNs();
    const wakeAt = wake === undefined ? Infinity : wake + (extra.lateNs ?? 0);
    replies.sort((a, b) => a.atNs - b.atNs);
    const reply = replies[0];
    const stopAt = !stopped && extra.stopAtNs !== undefined ? extra.stopAtNs : Infinity;
    const t = Math.min(wakeAt, reply?.atNs ?? Infinity, stopAt);
    if (t === Infinity) break;
    clock.setNs(Math.max(clock.nowNs(), t));
    if (t === stopAt) {
      stopped = true;
      d.stop();
    } else if (reply && t === reply.atNs) {
      replies.shift();
      d.completed(reply.batch, true);
    } else {
      d.advance();
    }
  }
  return { d, sent };
}

describe('buildArrivalSchedule', () => {
  it('uniform: evenly spaced, rate x duration of them', () => {
    const s = buildArrivalSchedule({ ratePerSec: 1000, durationUs: 2_000_000, arrival: 'uniform', seed: 1 });
    expect(s.length).toBe(2000);
    expect(s[0]).toBe(0);
    expect(s[1]).toBeCloseTo(1e6, 6);
    expect(s[1999]).toBeCloseTo(1999e6, 3);
  });

  it('poisson: ascending, about rate x duration, mean gap 1/rate, the same for the same seed', () => {
    const a = buildArrivalSchedule({ ratePerSec: 5000, durationUs: 4_000_000, arrival: 'poisson', seed: 7 });
    const b = buildArrivalSchedule({ ratePerSec: 5000, durationUs: 4_000_000, arrival: 'poisson', seed: 7 });
    const c = buildArrivalSchedule({ ratePerSec: 5000, durationUs: 4_000_000, arrival: 'poisson', seed: 8 });
    expect([...a]).toEqual([...b]);
    expect([...a]).not.toEqual([...c]);
    // 20000 expected, standard deviation ~141: 4 sigma either way.
    expect(Math.abs(a.length - 20_000)).toBeLessThan(600);
    for (let i = 1; i < a.length; i++) expect(a[i]! >= a[i - 1]!).toBe(true);
    expect(a[a.length - 1]!).toBeLessThan(4e9);
    // Exponential gaps: the coefficient of variation is 1 (uniform would give 0).
    const gaps = Array.from({ length: a.length - 1 }, (_, i) => a[i + 1]! - a[i]!);
    const mean = gaps.reduce((x, y) => x + y, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((x, g) => x + (g - mean) ** 2, 0) / gaps.length);
    expect(mean).toBeGreaterThan(0.97 * 200_000);
    expect(mean).toBeLessThan(1.03 * 200_000);
    expect(sd / mean).toBeGreaterThan(0.95);
    expect(sd / mean).toBeLessThan(1.05);
  });
});

describe('OpenLoopDispatcher (fake clock)', () => {
  const base = { connections: 1, inFlightPerConnection: 1, batchWindowNs: 0, maxBatch: 1 };

  it('keeps the schedule: each command is sent at its intended time when a connection is free', () => {
    const schedule = buildArrivalSchedule({ ratePerSec: 100, durationUs: 1_000_000, arrival: 'poisson', seed: 3 });
    const { d, sent } = simulate({ ...base, connections: 4, schedule, durationNs: 1000 * MS }, 2 * MS);
    expect(sent.map((b) => b.sentNs)).toEqual([...schedule]);
    expect(d.ledger.lateness.summary().max).toBe(0);
  });

  it('lateness and the send time are read at each write: three due at once leave one write apart', () => {
    const clock = new FakeClock(0);
    const sent: number[] = [];
    const d = new OpenLoopDispatcher({
      ...base,
      connections: 3,
      clock,
      startNs: 0,
      durationNs: 1 * MS,
      schedule: [100_000, 100_000, 100_000],
      send: (batch) => {
        sent.push(batch.sentNs);
        clock.setNs(clock.nowNs() + 10_000); // a write takes 10 us
      },
    });
    clock.setNs(100_000);
    d.advance();
    expect(sent).toEqual([100_000, 110_000, 120_000]);
    const late = d.ledger.lateness.summary();
    expect([late.count, late.p50, late.max]).toEqual([3, 10, 20]);
  });

  it('a command that finds no free connection is late by when it was seen due, not by its wait for one', () => {
    const clock = new FakeClock(0);
    const batches: OpenLoopBatch[] = [];
    const d = new OpenLoopDispatcher({ ...base, clock, startNs: 0, durationNs: 1 * MS, schedule: [0, 0], send: (b) => void batches.push(b) });
    clock.setNs(5_000);
    d.advance(); // the first is sent 5 us late, the second waits for the connection
    clock.setNs(500_000);
    d.completed(batches[0]!, true);
    expect(batches).toHaveLength(2);
    const late = d.ledger.lateness.summary();
    expect([late.count, late.max]).toEqual([2, 5]);
  });

  it('corrected equals uncorrected when nothing queues', () => {
    const schedule = buildArrivalSchedule({ ratePerSec: 100, durationUs: 1_000_000, arrival: 'uniform', seed: 1 });
    const { d } = simulate({ ...base, schedule, durationNs: 1000 * MS }, 5 * MS);
    const c = d.ledger.corrected.summary();
    expect(c.count).toBe(100);
    expect(c).toEqual(d.ledger.uncorrected.summary());
    expectUs(c.p50, 5000);
    expect(d.ledger.peakBacklog).toBe(1); // due and sent in the same instant
    expect(d.ledger.completedInDuration).toBe(100);
  });

  it('D/D/1 at twice capacity: the backlog grows, corrected grows with the run, uncorrected stays the service time', () => {
    // Service 20 ms (capacity 50/s), arrivals every 10 ms: command k is sent at 20k ms and answered
    // at 20(k+1) ms, so its corrected latency is 20(k+1) - 10k = 10k + 20 ms.
    const schedule = buildArrivalSchedule({ ratePerSec: 100, durationUs: 2_000_000, arrival: 'uniform', seed: 1 });
    const { d } = simulate({ ...base, schedule, durationNs: 2000 * MS }, 20 * MS);
    expect(d.ledger.completed).toBe(200);
    const u = d.ledger.uncorrected.summary();
    expectUs(u.p50, 20_000);
    expectUs(u.max, 20_000);
    const c = d.ledger.corrected.summary();
    expect(c.max).toBeGreaterThanOrEqual(10 * 199 * 1000 + 20_000 - 2000); // HDR buckets: within 0.1%
    expect(c.max).toBeLessThanOrEqual((10 * 199 + 20) * 1000 * 1.001);
    const first = d.ledger.correctedFirstHalf.valueAtPercentile(99);
    const second = d.ledger.correctedSecondHalf.valueAtPercentile(99);
    expect(second / first).toBeGreaterThan(1.5);
    // Achieved: 100 answered by the end of the 2 s (one per 20 ms) of 200 scheduled.
    expect(d.ledger.completedInDuration).toBe(100);
    expect(d.ledger.peakBacklog).toBeGreaterThanOrEqual(99);
    // The backlog over time (100 ms buckets) climbs until the schedule ends at 2 s, then drains.
    const series = d.ledger.backlogMax;
    expect(series[5]!).toBeLessThan(series[15]!);
    expect(series.indexOf(Math.max(...series))).toBe(19);
    expect(series.length).toBeGreaterThanOrEqual(39);
  });

  it('one shared backlog: a due command takes whichever connection frees first', () => {
    // 3 commands at once on 2 connections: the third waits for the first reply.
    const { d, sent } = simulate({ ...base, connections: 2, schedule: [0, 0, 0], durationNs: 10 * MS }, 4 * MS);
    expect(sent.map((b) => [b.conn, b.sentNs])).toEqual([
      [0, 0],
      [1, 0],
      [0, 4 * MS],
    ]);
    expectUs(d.ledger.corrected.summary().max, 8000);
    expectUs(d.ledger.uncorrected.summary().max, 4000);
  });

  it('reports the driver lateness when advance() runs late', () => {
    const schedule = buildArrivalSchedule({ ratePerSec: 100, durationUs: 500_000, arrival: 'uniform', seed: 1 });
    const { d } = simulate({ ...base, schedule, durationNs: 500 * MS }, 1 * MS, { lateNs: 0.3 * MS });
    const late = d.ledger.lateness.summary();
    expect(late.p50).toBe(300);
    expect(late.max).toBe(300);
    // The lateness is part of the corrected latency, not of the uncorrected one.
    expect(d.ledger.corrected.summary().p50).toBe(1300);
    expect(d.ledger.uncorrected.summary().p50).toBe(1000);
  });

  it('counts the wait for a free connection apart, and replays a punctual run from the service times', () => {
    // One connection, service 1.2 ms, commands due at 0 and 0.4 ms: the second waits 0.8 ms for the connection.
    const { d } = simulate({ ...base, schedule: [0, 0.4 * MS], durationNs: 10 * MS }, 1.2 * MS);
    const wait = d.ledger.connectionWait.summary();
    expect([wait.count, wait.p50, wait.max]).toEqual([2, 0, 800]);
    // On time, so the replay gives the run back: 1.2 and 2.0 ms.
    const punctual = punctualCorrected(d.ledger.serviceTimes!, 1).summary();
    expect([punctual.count, punctual.p50, punctual.max]).toEqual([2, 1200, 2000]);
    expect(punctual.max).toBe(d.ledger.corrected.summary().max);
  });

  it("a late driver's cost is corrected minus the punctual replay", () => {
    // Commands 1 ms apart on two connections, service 1.5 ms: on time, nobody waits for a
    // connection (each frees 0.5 ms before its next command). The driver wakes 300 us late for
    // every command after the first, so those are answered 1.8 ms after due; the replay, 1.5 ms.
    const schedule = Array.from({ length: 50 }, (_, i) => i * MS);
    const { d } = simulate({ ...base, connections: 2, schedule, durationNs: 60 * MS }, 1.5 * MS, { lateNs: 0.3 * MS });
    const punctual = punctualCorrected(d.ledger.serviceTimes!, 2).summary();
    const corrected = d.ledger.corrected.summary();
    expect([punctual.count, punctual.p50, punctual.max]).toEqual([50, 1500, 1500]);
    expect([corrected.count, corrected.p50, corrected.max]).toEqual([50, 1800, 1800]);
    expect(d.ledger.connectionWait.summary().max).toBe(0);
    expect(d.ledger.uncorrected.summary().max).toBe(1500);
  });

  it('keeps service times only for commands sent alone on one-in-flight connections with a schedule', () => {
    const schedule = [0, MS];
    expect(simulate({ ...base, schedule, durationNs: 5 * MS }, MS).d.ledger.serviceTimes?.count).toBe(2);
    expect(simulate({ ...base, schedule, durationNs: 5 * MS, batchWindowNs: MS, maxBatch: 4 }, MS).d.ledger.serviceTimes).toBeUndefined();
    expect(simulate({ ...base, schedule, durationNs: 5 * MS, inFlightPerConnection: Infinity }, MS).d.ledger.serviceTimes).toBeUndefined();
    expect(simulate({ ...base, durationNs: 5 * MS }, MS).d.ledger.serviceTimes).toBeUndefined();
  });

  it('a batch window gathers the commands due within W of the first, closes at B, and costs the wait', () => {
    // Commands every 100 us; W = 250 us: batches of 3 (0, 100, 200 close at 250).
    const schedule = Array.from({ length: 9 }, (_, i) => i * 100_000);
    const w = simulate({ ...base, schedule, durationNs: 1 * MS, batchWindowNs: 250_000, maxBatch: 64, inFlightPerConnection: 1, connections: 3 }, 50_000);
    expect(w.sent.map((b) => b.dues.length)).toEqual([3, 3, 3]);
    expect(w.sent.map((b) => b.sentNs)).toEqual([250_000, 550_000, 850_000]);
    expect(w.d.ledger.batchesSent).toBe(3);
    const wait = w.d.ledger.batchWait;
    expect(wait.summary().max).toBe(250);
    expect(wait.summary().count).toBe(9);
    // B = 2 closes the batch on its second command.
    const b = simulate({ ...base, schedule, durationNs: 1 * MS, batchWindowNs: 250_000, maxBatch: 2, connections: 3 }, 50_000);
    expect(b.sent.map((x) => x.dues.length)).toEqual([2, 2, 2, 2, 1]);
    expect(b.sent[0]!.sentNs).toBe(100_000);
  });

  it('stop(): nothing more is sent, what was not sent is counted, replies in flight still count', () => {
    const schedule = buildArrivalSchedule({ ratePerSec: 100, durationUs: 1_000_000, arrival: 'uniform', seed: 1 });
    const { d } = simulate({ ...base, schedule, durationNs: 1000 * MS }, 20 * MS, { stopAtNs: 105 * MS });
    // Sent at 0, 20, ..., 100 ms (6), the one sent at 100 ms answered at 120 ms after the stop.
    expect(d.ledger.sent).toBe(6);
    expect(d.ledger.completed).toBe(6);
    expect(d.unsent).toBe(100 - 6);
    expect(d.finished).toBe(true);
  });

  it('closed loops: C connections each send the next command as the reply lands, for the duration', () => {
    const { d } = simulate({ ...base, connections: 3, durationNs: 100 * MS }, 10 * MS);
    expect(d.ledger.completed).toBe(30);
    expect(d.ledger.corrected.summary()).toEqual(d.ledger.uncorrected.summary());
    expect(d.ledger.meanOutstanding()).toBeCloseTo(3, 6);
  });

  it('closed loops over auto-pipelining clients still keep one command per connection, and end at the duration', () => {
    const { d, sent } = simulate({ ...base, connections: 2, inFlightPerConnection: Infinity, durationNs: 100 * MS }, 10 * MS);
    expect(d.ledger.completed).toBe(20);
    expect(sent.filter((b) => b.sentNs === 0)).toHaveLength(2);
    expect(d.finished).toBe(true);
  });

  it('closed loops with nothing in flight still wake at the end of the duration', () => {
    const clock = new FakeClock(0);
    const d = new OpenLoopDispatcher({ ...base, clock, startNs: 0, durationNs: 50 * MS, send: () => {} });
    expect(d.nextWakeNs()).toBe(50 * MS);
  });

  it("auto-pipelining connections take every due command at once (the client queues), spread round-robin", () => {
    const { sent } = simulate({ ...base, connections: 2, inFlightPerConnection: Infinity, schedule: [0, 0, 0], durationNs: 10 * MS }, 4 * MS);
    expect(sent.map((b) => [b.conn, b.sentNs])).toEqual([
      [0, 0],
      [1, 0],
      [0, 0],
    ]);
  });

  it("Little's law: the time-average outstanding equals rate x mean corrected latency", () => {
    const schedule = buildArrivalSchedule({ ratePerSec: 200, durationUs: 2_000_000, arrival: 'poisson', seed: 5 });
    const { d } = simulate({ ...base, connections: 2, schedule, durationNs: 2000 * MS }, 6 * MS);
    const spanS = d.ledger.lastCompletionNs / 1e9;
    const predicted = (d.ledger.completed / spanS) * (d.ledger.corrected.summary().mean / 1e6);
    expect(d.ledger.meanOutstanding()).toBeCloseTo(predicted, 2);
  });
});
