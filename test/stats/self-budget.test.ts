import { describe, expect, it } from 'vitest';
import { selfBudgetUs, selfReportNote, type SelfQuantiles, type SelfReport } from '../../src/stats/self-report.js';

const q = (p99: number, count = 100): SelfQuantiles => {
  const mean = p99 / 3;
  return { p50: Math.round(p99 / 4), p90: Math.round(p99 / 2), p99, max: p99 * 2, count, mean, sum: mean * count };
};
const zero = q(0, 0);
const report = (addedP99: number, count = 100, roundTrip = zero): SelfReport => ({
  lateUs: q(10, count),
  lateUsByDirection: { up: zero, down: zero },
  addedUs: q(addedP99, count),
  roundTripAddedUs: roundTrip,
  arrivalLagUs: zero,
  eventLoopDelayUs: zero,
  gcPauseUs: zero,
});

describe("the proxy's own budget", () => {
  it('is 100 us up to a 1 ms RTT, then a tenth of the RTT', () => {
    expect(selfBudgetUs(0)).toBe(100);
    expect(selfBudgetUs(1000)).toBe(100);
    expect(selfBudgetUs(2400)).toBe(240);
    expect(selfBudgetUs(170_000)).toBe(17_000);
  });

  it('notes the added time, and warns only past the budget', () => {
    expect(selfReportNote('cross-az', report(100), 1200)).toBe(
      "cross-az: proxy's own added time p99 100 us (p50 25, max 200, 100 chunks)",
    );
    const warning = selfReportNote('cross-az', report(121), 1200)!;
    expect(warning).toMatch(/^warning: cross-az: the proxy's own added time is p99 121 us .* = 120 us/);
    expect(selfReportNote('same-az', report(101), 200)).toMatch(/^warning: same-az: .* = 100 us/);
    expect(selfReportNote('cross-region', report(8000), 170_000)).not.toMatch(/warning/);
  });

  it('gives the round trip figure where replies left: a round trip carries both directions', () => {
    expect(selfReportNote('cross-az', report(90, 100, q(150, 40)), 1200)).toBe(
      "warning: cross-az: the proxy's own added time is p99 150 us (p50 38, max 300, 40 replies), over max(100 us, RTT/10) = " +
        "120 us: this link's latencies include that much of the proxy's own delay (a loaded machine, or the driver sharing its CPU)",
    );
    expect(selfReportNote('cross-az', report(200, 100, q(110, 40)), 1200)).toBe("cross-az: proxy's own added time p99 110 us (p50 28, max 220, 40 replies)");
  });

  it('says nothing when no chunk was delivered', () => {
    expect(selfReportNote('direct', report(0, 0), 0)).toBeUndefined();
  });
});
