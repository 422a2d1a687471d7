import { performance } from 'node:perf_hooks';

/**
 * Monotonic time. Everything that schedules or stamps takes a Clock so tests can drive time by hand.
 * Nanoseconds are carried as JS numbers: 2^53 ns is 104 days of uptime, enough for one process.
 */
export interface Clock {
  /** Monotonic nanoseconds since an arbitrary origin. */
  nowNs(): number;
}

/**
 * `performance.now()` is the same monotonic clock as `process.hrtime`, read as a plain double: no
 * BigInt or array to collect on every stamp of the data path. Whole nanoseconds, so differences
 * stay integers for the histograms.
 */
export const realClock: Clock = {
  nowNs: () => Math.round(performance.now() * 1e6),
};

export function nowUs(clock: Clock = realClock): number {
  return clock.nowNs() / 1000;
}

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  constructor(private ns = 0) {}
  nowNs(): number {
    return this.ns;
  }
  advanceNs(ns: number): void {
    if (ns < 0) throw new RangeError('a clock cannot go back');
    this.ns += ns;
  }
  advanceUs(us: number): void {
    this.advanceNs(us * 1000);
  }
  setNs(ns: number): void {
    if (ns < this.ns) throw new RangeError('a clock cannot go back');
    this.ns = ns;
  }
}
