import { describe, expect, it } from 'vitest';
import { DRAIN_CAP_MS, DRAIN_MARGIN_MS, drainLimitMs } from '../../src/proxy/drain.js';

describe('how long a clean stop lets the connections drain (listener.ts)', () => {
  it("the link's round trip plus two jitter scales each way, plus the margin, capped", () => {
    expect(drainLimitMs(0, 0)).toBe(DRAIN_MARGIN_MS);
    expect(drainLimitMs(200_000, 0)).toBe(200 + DRAIN_MARGIN_MS);
    expect(drainLimitMs(100_000, 10_000)).toBe(140 + DRAIN_MARGIN_MS);
    expect(drainLimitMs(40_000_000, 0)).toBe(DRAIN_CAP_MS);
  });
});
