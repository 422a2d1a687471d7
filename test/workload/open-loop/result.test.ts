import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/clock.js';
import { OpenLoopDispatcher, type OpenLoopBatch } from '../../../src/workload/open-loop/dispatcher.js';
import { openLoopResult } from '../../../src/workload/open-loop/result.js';
import { isOpenLoopOk, type MeasuredOpenLoopResult, type OpenLoopResult } from '../../../src/workload/open-loop/types.js';
import { renderOpenLoopTable } from '../../../src/report/open-loop/table.js';
import { ENVIRONMENT } from '../../report/fixture-builder.js';

const MS = 1e6;

/**
 * Runs commands due every `gapNs` on `connections` connections of a fake link answering each in
 * `serviceNs`, the driver waking `lateNs` after each due time, and returns the run's JSON row.
 */
type RunShape = { count: number; gapNs: number; connections: number; serviceNs: number; lateNs: number; stopAtNs?: number; fail?: string; mode?: 'seq' | 'mux' };
function runRow(o: RunShape): OpenLoopResult {
  const clock = new FakeClock(0);
  const replies: { atNs: number; batch: OpenLoopBatch }[] = [];
  const schedule = Array.from({ length: o.count }, (_, i) => i * o.gapNs);
  const durationNs = o.count * o.gapNs;
  const d = new OpenLoopDispatcher({
    clock,
    startNs: 0,
    durationNs,
    schedule,
    connections: o.connections,
    inFlightPerConnection: o.mode === 'mux' ? Infinity : 1,
    batchWindowNs: 0,
    maxBatch: 1,
    send: (batch) => void replies.push({ atNs: clock.nowNs() + o.serviceNs, batch }),
  });
  let stopped: 'aborted' | null = null;
  for (let guard = 0; guard < 1e6 && !d.finished; guard++) {
    if (o.stopAtNs !== undefined && stopped === null && clock.nowNs() >= o.stopAtNs) {
      stopped = 'aborted';
      d.stop();
      continue;
    }
    const wake = d.nextWakeNs();
    const wakeAt = wake === undefined ? Infinity : wake + o.lateNs;
    replies.sort((a, b) => a.atNs - b.atNs);
    const reply = replies[0];
    if (reply && reply.atNs <= wakeAt) {
      clock.setNs(reply.atNs);
      replies.shift();
      d.completed(reply.batch, o.fail === undefined);
    } else {
      clock.setNs(Math.max(clock.nowNs(), wakeAt));
      d.advance();
    }
  }
  return openLoopResult(
    { link: 'fake', linkRttUs: o.serviceNs / 1000, mode: o.mode ?? 'seq', arrival: 'uniform', clients: o.connections, ratePerSec: 1e9 / o.gapNs, durationUs: durationNs / 1000, batchWindowUs: 0, maxBatch: 1 },
    {
      ledger: d.ledger, scheduled: o.count, unsent: d.unsent, roundTrips: 7, stopped, processCpuPct: 0, proxyCpuPct: null,
      ...(o.fail !== undefined ? { error: o.fail } : {}),
    },
  );
}

function run(o: RunShape): MeasuredOpenLoopResult {
  const r = runRow(o);
  if (!isOpenLoopOk(r)) throw new Error(`failed: ${r.error}`);
  return r;
}

describe('openLoopResult: a failed run', () => {
  it('has null figures, not zeros, where its replies gave none; its counts and the driver\'s own figures stay', () => {
    const r = runRow({ count: 50, gapNs: MS, connections: 2, serviceNs: 0.5 * MS, lateNs: 0, fail: 'the connection closed' });
    expect(isOpenLoopOk(r)).toBe(false);
    expect(r).toMatchObject({
      error: 'the connection closed',
      achievedRate: null,
      perClientRate: null,
      correctedLatencyUs: null,
      uncorrectedLatencyUs: null,
      correctedP99FirstHalfUs: null,
      correctedP99SecondHalfUs: null,
      correctedMeanUs: null,
      uncorrectedMeanUs: null,
      measuredConcurrency: null,
      roundTrips: null,
      punctualCorrectedP99Us: null,
      saturated: null,
      histograms: null,
      scheduled: 50,
      sent: 50,
      completed: 0,
      failed: 50,
      unsent: 0,
    });
    expect(r.latenessUs).toEqual({ p50: 0, p99: 0, max: 0 });
    // The table says FAILED and leaves the figures empty, as the closed-loop table does.
    const table = renderOpenLoopTable({ kind: 'open-loop', environment: ENVIRONMENT, sloUs: null, results: [r], notes: [] });
    const [latencyRow, loadRow] = table.split('\n').filter((l) => l.startsWith('fake seq C=2 '));
    expect(latencyRow).toMatch(/^fake seq C=2\s+1000\s+FAILED\s+\|\s*$/);
    // Achieved, per connection, both halves' p99 and outstanding empty; backlog, unsent, rate x RTT, lateness, cpu there.
    expect(loadRow).toMatch(/^fake seq C=2\s+1000\s+1\s+0\s+0\.5\s+0us\s+0%\s+-\s+FAILED$/);
    expect(table).toContain('fake seq C=2: FAILED: the connection closed');
  });
});

describe('openLoopResult: a run stopped on request (Ctrl-C)', () => {
  it('counts its rate over the time it ran, and is not called saturated', () => {
    // 1000/s for 100 ms, stopped at 40 ms: about 40 answered in 40 ms.
    const r = run({ count: 100, gapNs: MS, connections: 4, serviceNs: 0.2 * MS, lateNs: 0, stopAtNs: 40 * MS });
    expect(r.achievedRate).toBeGreaterThan(950);
    expect(r.achievedRate).toBeLessThanOrEqual(1050);
    expect(r.saturated).toBeNull();
    expect(r.note).toContain('stopped on request');
  });

  it('gives no p99 for a half with no answered command (not one of 0 us)', () => {
    // Stopped at 40 ms of 100: every answered command was due in the first half.
    const r = run({ count: 100, gapNs: MS, connections: 4, serviceNs: 0.2 * MS, lateNs: 0, stopAtNs: 40 * MS });
    expect(r.correctedP99FirstHalfUs).toBe(200);
    expect(r.correctedP99SecondHalfUs).toBeNull();
    const table = renderOpenLoopTable({ kind: 'open-loop', environment: ENVIRONMENT, sloUs: null, results: [r], notes: [] });
    const loadRow = table.split('\n').filter((l) => l.startsWith('fake seq C=4 '))[1];
    expect(loadRow).toMatch(/^fake seq C=4\s+1000\s+\S+\s+\S+\s+200us\s{2,}\d+\s+\d+\s/);
  });
});

describe('openLoopResult: the rate per connection', () => {
  it('keeps three significant digits: 300 connections sharing 10/s run at 0.0333/s each, not 0', () => {
    const r = run({ count: 20, gapNs: 100 * MS, connections: 300, serviceNs: 0.2 * MS, lateNs: 0 });
    expect(r.perClientRate).toBe(Number((r.achievedRate / 300).toPrecision(3)));
    expect(r.perClientRate).toBeGreaterThan(0.03);
    expect(r.perClientRate).toBeLessThan(0.035);
    const table = renderOpenLoopTable({ kind: 'open-loop', environment: ENVIRONMENT, sloUs: null, results: [r], notes: [] });
    const loadRow = table.split('\n').filter((l) => l.startsWith('fake seq C=300 '))[1];
    expect(loadRow).toMatch(new RegExp(`^fake seq C=300\\s+10\\s+${r.achievedRate}\\s+${String(r.perClientRate).replace('.', '\\.')}\\s`));
  });
});

describe('openLoopResult: the saturated column', () => {
  it('says the rate verdict and the driver\'s lateness together, the one not hiding the other', () => {
    // One connection, 3 ms service for a command every 1 ms (three times its capacity), the driver 2 ms late.
    const r = run({ count: 100, gapNs: MS, connections: 1, serviceNs: 3 * MS, lateNs: 2 * MS });
    expect([r.saturated, r.driverSaturated]).toEqual(['rate', true]);
    const table = renderOpenLoopTable({ kind: 'open-loop', environment: ENVIRONMENT, sloUs: null, results: [r], notes: [] });
    expect(table).toMatch(/^fake seq C=1 .* yes \(rate\), driver$/m);
    // Its tail is the backlog of an over-capacity link: sent on time, the replay gives the same p99.
    expect(r.note).toContain('driver saturated: its own scheduling lateness p99');
    expect(r.note).toContain("the link, not the driver's lateness, set this run's tail");
    expect(r.note).not.toContain('the driver, not the link, limited this run');
  });

  it('blames the driver where its lateness made the tail (free connections, sent 2 ms late)', () => {
    const r = run({ count: 200, gapNs: MS, connections: 2, serviceNs: 0.5 * MS, lateNs: 2 * MS });
    expect(r.punctualCorrectedP99Us).toBe(500);
    expect(r.correctedLatencyUs.p99).toBeGreaterThanOrEqual(2500);
    expect(r.note).toContain('driver saturated: its own scheduling lateness p99 2000 us is past 1000 us, so the driver, not the link, limited this run');
  });
});

describe('openLoopResult: how much of corrected over uncorrected the driver made', () => {
  it('a late driver on free connections: all of the gap is its lateness', () => {
    const r = run({ count: 200, gapNs: MS, connections: 2, serviceNs: 1.5 * MS, lateNs: 0.3 * MS });
    expect([r.correctedLatencyUs.p99, r.uncorrectedLatencyUs.p99, r.punctualCorrectedP99Us]).toEqual([1800, 1500, 1500]);
    expect(r.connectionWaitUs?.p99).toBe(0);
    expect(r.note).toContain("corrected p99 is 300 us over uncorrected; sent on time, it would have been 1500 us: the driver's lateness cost 300 us of it, the wait for a free connection 0 us");
  });

  it('a punctual driver short of connections: all of the gap is the wait for one', () => {
    // One connection, a command every 0.5 ms, on time.
    const r = run({ count: 100, gapNs: 0.5 * MS, connections: 1, serviceNs: 0.4 * MS, lateNs: 0 });
    expect(r.note).toBeUndefined(); // nobody waits: 0.4 ms service every 0.5 ms
    const q = run({ count: 100, gapNs: 0.5 * MS, connections: 1, serviceNs: 0.6 * MS, lateNs: 0 });
    // Each command waits 0.1 ms longer than the one before: the last, 9.9 ms.
    expect(q.punctualCorrectedP99Us).toBe(q.correctedLatencyUs.p99);
    expect(q.connectionWaitUs!.max).toBeGreaterThanOrEqual(9900);
    expect(q.note).toContain("the driver's lateness cost 0 us of it");
    expect(q.note).toContain('which more connections or --modes mux shorten and a punctual driver cannot');
  });

  it('mux on the same connection: no wait for a free one, so corrected is uncorrected', () => {
    // The shape above that queued on seq: 0.6 ms service every 0.5 ms on one connection.
    const m = run({ count: 100, gapNs: 0.5 * MS, connections: 1, serviceNs: 0.6 * MS, lateNs: 0, mode: 'mux' });
    expect([m.correctedLatencyUs.p99, m.uncorrectedLatencyUs.p99]).toEqual([600, 600]);
    expect(m.connectionWaitUs?.max).toBe(0);
    expect(m.punctualCorrectedP99Us).toBeNull();
    expect(m.note).toBeUndefined();
  });

  it('mux: what corrected has over uncorrected is the driver\'s lateness, and the note says so', () => {
    const m = run({ count: 200, gapNs: MS, connections: 1, serviceNs: 1.5 * MS, lateNs: 0.3 * MS, mode: 'mux' });
    expect([m.correctedLatencyUs.p99, m.uncorrectedLatencyUs.p99]).toEqual([1800, 1500]);
    expect(m.note).toContain("corrected p99 is 300 us over uncorrected: a mux command waits for no connection, so that is the driver's lateness (p99 300 us)");
  });

  it('no note while corrected stays within 5% (and 100 us) of uncorrected', () => {
    const r = run({ count: 200, gapNs: MS, connections: 2, serviceNs: 1.5 * MS, lateNs: 0.05 * MS });
    expect(r.correctedLatencyUs.p99 - r.uncorrectedLatencyUs.p99).toBe(50);
    expect(r.note).toBeUndefined();
  });
});
