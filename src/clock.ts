
/**
 * Monotonic time. Everything that schedules or stamps takes a Clock so tests can drive time by hand.
 * Nanoseconds are carried as JS numbers: 2^53 ns is 104 days of uptime, enough for one process.
 */
export interface Clock {
  /** Monotonic nanoseconds since an arbitrary origin. */
  nowNs(): number;
}

/**
 * The monotonic clock (CLOCK_MONOTONIC, which `performance.now()` reads too) in whole
 * nanoseconds, from `process.hrtime()`: its two parts are small integers, and once the caller is
 * optimized the pair never reaches the heap, where `performance.now()`'s double result does on
 * every call. A busy-wait reads the clock millions of times a second, so this is the difference
 * between no garbage and a scavenge every few milliseconds (docs/precision.md, "A clock that
 * makes no garbage"). Every thread of the process reads the same clock.
 */
export function monotonicNs(): number {
  const t = process.hrtime();
  return t[0] * 1e9 + t[1];
}

export const realClock: Clock = {
  nowNs: monotonicNs,
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
