import { describe, expect, it } from 'vitest';
import {
  backedOffRtoNs,
  firstResendAfterNs,
  firstRetransmitAfterNs,
  giveUpAfterNs,
  rackDetectNs,
  retransmitAtNs,
  rtoNs,
  synRetryNs,
  TCP_RTO_MAX_NS,
  TCP_TIMEOUT_INIT_NS,
  tlpTimeoutNs,
} from '../../src/link/rto.js';

const MS = 1e6;
const S = 1e9;

describe('Linux RTO arithmetic', () => {
  it('floors the variance term, not the whole RTO', () => {
    expect(rtoNs(1.2 * MS, 0)).toBe(201.2 * MS);
    expect(rtoNs(85 * MS, 0)).toBe(285 * MS);
    // 4 x RTTVAR above the floor wins: 10 ms + 4 x 60 ms.
    expect(rtoNs(10 * MS, 60 * MS)).toBe(250 * MS);
    expect(rtoNs(200 * S, 0)).toBe(TCP_RTO_MAX_NS);
  });

  it('doubles per repeated loss of the same segment, capped at 120 s', () => {
    expect([1, 2, 3, 4].map((n) => backedOffRtoNs(200 * MS, n) / MS)).toEqual([200, 400, 800, 1600]);
    expect(backedOffRtoNs(200 * MS, 11)).toBe(TCP_RTO_MAX_NS);
    expect(retransmitAtNs(200 * MS, 3)).toBe(1400 * MS);
  });

  it('a SYN is retried 1, 3, 7 s after the first (each wait doubled from its first)', () => {
    const next = firstRetransmitAfterNs(TCP_TIMEOUT_INIT_NS, 5 * S);
    expect(next).toEqual({ atNs: 7 * S, n: 3 });
    expect(firstRetransmitAfterNs(200 * MS, 0)).toEqual({ atNs: 0, n: 0 });
  });

  it('data is resent by the probe at the RTO, then the RTO doubling: a 10 s partition heals at the 7th try, 12.8 s after the loss', () => {
    // Linux 6.18, measured through a router namespace that dropped both ways (RTO 204 ms): resends 0.21, 0.42, 0.85, 1.68,
    // 3.39, 6.80 s after the send, the reply at 13.46 s; not 0.2, 0.6, 1.4, 3.0, 6.2, 12.6 s.
    const next = firstResendAfterNs(200 * MS, 10 * S);
    expect(next.n).toBe(7);
    expect(next.atNs).toBeCloseTo(12.8 * S, 0);
    expect([0.1, 0.3, 0.5, 1].map((s) => firstResendAfterNs(200 * MS, s * S).atNs / MS)).toEqual([200, 400, 800, 1600]);
    expect(firstResendAfterNs(200 * MS, 0)).toEqual({ atNs: 0, n: 0 });
    // The cap: no wait past TCP_RTO_MAX.
    expect(firstResendAfterNs(200 * MS, 300 * S).atNs).toBeCloseTo((0.2 + 204.6 + 120) * S, 0);
  });

  it('gives up after 924.6 s with tcp_retries2 = 15', () => {
    expect(giveUpAfterNs()).toBeCloseTo(924.6 * S, 0);
    expect(giveUpAfterNs(3)).toBeCloseTo(3 * S, 0);
  });

  it('tail-loss probe: 2 x SRTT + 200 ms alone, + 2 ms with company, never after the RTO', () => {
    expect(tlpTimeoutNs(1.2 * MS, 1, rtoNs(1.2 * MS, 0))).toBe(201.2 * MS);
    expect(tlpTimeoutNs(1.2 * MS, 3, rtoNs(1.2 * MS, 0))).toBeCloseTo(4.4 * MS, 3);
    expect(tlpTimeoutNs(85 * MS, 1, rtoNs(85 * MS, 0))).toBe(285 * MS);
    expect(tlpTimeoutNs(85 * MS, 2, rtoNs(85 * MS, 0))).toBe(172 * MS);
  });

  it('RACK finds the loss one RTT and a quarter after the send', () => {
    expect(rackDetectNs(80 * MS)).toBe(100 * MS);
  });

  it('a lost SYN is resent after 1 s, then 2 s, then 4 s', () => {
    expect([1, 2, 3].map((n) => synRetryNs(n) / S)).toEqual([1, 2, 4]);
  });
});
