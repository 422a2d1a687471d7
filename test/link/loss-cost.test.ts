import { describe, expect, it } from 'vitest';
import { roundTripLossCost } from '../../src/link/loss-cost.js';

describe('what the loss model predicts a one-segment round trip costs', () => {
  it('1% each way at 1.2 ms: p50 the RTT, p99 one RTO (201.2 ms) more, ~2% resent', () => {
    const c = roundTripLossCost({ rttUs: 1200, lossUp: 0.01, lossDown: 0.01 });
    expect(c.p50Us).toBe(1200);
    expect(c.p99Us).toBeCloseTo(1200 + 201_200, 6);
    expect(c.p999Us).toBeCloseTo(1200 + 201_200, 6);
    expect(c.slowShare).toBeCloseTo(1 - 0.99 ** 2, 12);
    // Per direction: 0.99 x 0.01 x 201.2 ms + 0.99 x 0.0001 x 402.4 ms + ...
    expect(c.meanUs / 1000).toBeCloseTo(4.065, 2);
  });

  it('0.1%: the p99 is the RTT, the p99.9 an RTO; 5%: the p99.9 is two RTOs', () => {
    const low = roundTripLossCost({ rttUs: 85_000, lossUp: 0.001, lossDown: 0.001 });
    expect([low.p50Us, low.p99Us, low.p999Us]).toEqual([85_000, 85_000, 85_000 + 285_000]);
    const high = roundTripLossCost({ rttUs: 1200, lossUp: 0.05, lossDown: 0.05 });
    expect(high.p99Us).toBeCloseTo(1200 + 201_200, 6);
    // Both directions lost once (0.25%) or one lost twice (2 x 0.05 x 0.05 x 0.95 = 0.475%): 402.4 ms.
    expect(high.p999Us).toBeCloseTo(1200 + 2 * 201_200, 6);
  });

  it('a rate near 1: every try but the 15th lost, as the model delivers it, each wait capped at 120 s', () => {
    // It read a mean of 0 with 100% resent (the mass past the 15th try went missing) and a p99 of 6586 s
    // (2^14 RTOs, uncapped). The 15th resend: the 201 ms probe, then 201 ms x (1 + 2 + ... + 512), then 4 x 120 s.
    const lastTryUs = 201_000 + 201_000 * 1023 + 4 * 120_000_000;
    const c = roundTripLossCost({ rttUs: 1000, lossUp: 0.999999, lossDown: 0.999999 });
    expect(c.p99Us).toBeCloseTo(1000 + 2 * lastTryUs, 3);
    expect(c.meanUs / (2 * lastTryUs)).toBeCloseTo(1, 4);
    expect(c.slowShare).toBeCloseTo(1, 9);
  });
});
