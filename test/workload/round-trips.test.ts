import { describe, expect, it } from 'vitest';
import { runBench } from '../../src/workload/bench.js';

// On a delayed link every wait is one round trip the proxy can see: nothing else shares the
// connection during a sample (reset, INFO and checks go to Redis directly).
describe('observed round trips equal ceil(N / B) on a delayed link', () => {
  it('for seq, pipeline, multi and lua (incr) and mget/mset (get/set)', async () => {
    const n = 45;
    const report = await runBench({
      links: ['rtt=1ms'],
      workloads: ['incr', 'set', 'get'],
      modes: ['seq', 'pipeline', 'multi', 'mget', 'mset', 'lua'],
      batches: [8, 45],
      n,
      repeat: 1,
      warmup: 0,
    });
    const rows = report.results.map((r) => `${r.workload} ${r.mode} B=${r.batch}: ${r.roundTrips}/${r.waits} ${r.error ?? ''}`);
    expect(report.results.length).toBeGreaterThanOrEqual(3 * 1 + 3 * 2 * 3 + 2 * 2);
    for (const r of report.results) {
      expect(r.error, rows.join('\n')).toBeUndefined();
      expect(r.waits).toBe(Math.ceil(n / r.batch));
      expect(r.roundTrips, rows.join('\n')).toBe(r.waits);
      expect(r.bytesUp).toBeGreaterThan(0);
      expect(r.breakdown!.linkWaitMs).toBeCloseTo(r.waits * 1, 6);
      // 1 ms per wait is a floor nothing can beat.
      expect(r.medianMs).toBeGreaterThanOrEqual(r.waits * 1 * 0.95);
    }
    // round trips = waits: no HELLO (nor any set-up) inside a timed sample; the report says what one would cost.
    expect(report.connectionSetup).toEqual({ openedWhileTimed: 0, roundTrips: 2, steps: ['TCP connect', 'HELLO'], links: [{ link: 'rtt=1ms', rttUs: 1000, ms: 2 }] });
  });
});
