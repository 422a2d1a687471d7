
/**
 * Monotonic time. Everything that schedules or stamps takes a Clock so tests can drive time by hand.
 * Nanoseconds are carried as JS numbers: 2^53 ns is 104 days of uptime, enough for one process.
 */
import { ConfigError } from './errors.js';

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

/**
 * A clock that only moves when told to. Exported for tests: a time that is no finite number (NaN,
 * '5', Infinity) made every later reading NaN or a string without a word, so each is a ConfigError
 * naming the call (`FakeClock.advanceNs`).
 */
export class FakeClock implements Clock {
  constructor(private ns = 0) {
    finiteNs('FakeClock(ns)', ns);
  }
  nowNs(): number {
    return this.ns;
  }
  advanceNs(ns: number): void {
    finiteNs('FakeClock.advanceNs', ns);
    if (ns < 0) throw new RangeError('a clock cannot go back');
    this.ns += ns;
  }
  advanceUs(us: number): void {
    this.advanceNs(us * 1000);
  }
  setNs(ns: number): void {
    finiteNs('FakeClock.setNs', ns);
    if (ns < this.ns) throw new RangeError('a clock cannot go back');
    this.ns = ns;
  }
}

function finiteNs(call: string, ns: unknown): void {
  if (typeof ns !== 'number' || !Number.isFinite(ns)) throw new ConfigError(call, ns, 'a finite number of nanoseconds');
}
