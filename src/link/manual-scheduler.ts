import type { Clock } from '../clock.js';
import type { Scheduler, Timer } from '../stage/types.js';
import { newTimer } from './timer-heap.js';
import { parseWith, withMethods } from '../validation/schema.js';

/** A scheduler driven by hand with a FakeClock: `runUntil(ns)` fires what is due, in order. */
export class ManualScheduler implements Scheduler {
  private readonly timers: Timer[] = [];
  constructor(readonly clock: Clock & { setNs(ns: number): void }) {
    // Exported for tests: a clock without them failed at the first timer, as a TypeError naming nothing.
    parseWith(withMethods(['nowNs', 'setNs'], 'a clock with nowNs() and setNs(ns), as FakeClock'), clock, () => 'ManualScheduler(clock)');
  }

  schedule(dueNs: number, fire: () => void): Timer {
    const t = newTimer(fire);
    this.arm(t, dueNs);
    return t;
  }

  arm(timer: Timer, dueNs: number): void {
    this.cancel(timer);
    timer.dueNs = dueNs;
    timer.index = 0;
    this.timers.push(timer);
  }

  cancel(timer: Timer): void {
    timer.index = -1;
    const i = this.timers.indexOf(timer);
    if (i >= 0) this.timers.splice(i, 1);
  }

  get pending(): number {
    return this.timers.length;
  }

  /** Advances the clock to each due time up to `ns` and fires the timers there. */
  runUntil(ns: number): void {
    for (;;) {
      let next: Timer | undefined;
      for (const t of this.timers) if (!next || t.dueNs < next.dueNs) next = t;
      if (!next || next.dueNs > ns) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      if (next.dueNs > this.clock.nowNs()) this.clock.setNs(next.dueNs);
      next.index = -1;
      next.fire();
    }
    if (ns > this.clock.nowNs()) this.clock.setNs(ns);
  }
}
