import { realClock, type Clock } from '../clock.js';
import type { DeliverySource, Scheduler, Timer } from '../stage/types.js';

export interface PreciseSchedulerOptions {
  clock?: Clock;
  /**
   * Inside this window before the earliest deadline the scheduler polls the clock with
   * setImmediate instead of sleeping. Node's setTimeout has 1 ms granularity and is often
   * 1-2.5 ms late, so the coarse sleep must end well before the deadline. @default 2 ms
   */
  spinWindowNs?: number;
  /**
   * Keep polling this long after a delivery, so the reply or next request that usually follows
   * within tens of microseconds does not pay a sleeping process's wake-up (measured: 200 us RTT
   * went from +13% to -1% added at p50). Costs CPU only while traffic flows. @default 1 ms
   */
  lingerNs?: number;
  /**
   * Zero-delay deliveries linger only while at most this many sources (delay lines; a connection
   * has two) delivered in the current or the previous linger window. With more, the traffic
   * itself keeps the process awake and polling only takes CPU from Redis and the clients.
   * @default 2 (one connection)
   */
  maxLingerSources?: number;
}

/**
 * Hybrid timer: a coarse setTimeout while the next deadline is far, then setImmediate polling of
 * the monotonic clock for the last couple of milliseconds. Idle (nothing due soon) it costs no
 * CPU; while a delivery is near it keeps one core busy, which is the price of microsecond
 * precision in a single-threaded runtime (measured in MEASUREMENTS.md: p50 lateness 1-3 us).
 * All timers share one heap, so a thousand connections cost one poll loop, not a thousand.
 */
export class PreciseScheduler implements Scheduler {
  readonly clock: Clock;
  private readonly spinWindowNs: number;
  private readonly heap: Timer[] = [];
  private coarse: NodeJS.Timeout | undefined;
  private coarseDueNs = Infinity;
  private polling = false;

  constructor(options: PreciseSchedulerOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.spinWindowNs = options.spinWindowNs ?? 2_000_000;
    this.lingerNs = options.lingerNs ?? 1_000_000;
    this.maxLingerSources = options.maxLingerSources ?? 2;
  }
  private readonly lingerNs: number;
  private readonly maxLingerSources: number;

  schedule(dueNs: number, fire: () => void): Timer {
    const timer: Timer = { dueNs, index: -1, fire };
    this.push(timer);
    if (timer.index === 0) this.arm();
    return timer;
  }

  cancel(timer: Timer): void {
    if (timer.index < 0) return;
    this.removeAt(timer.index);
    timer.index = -1;
  }

  /**
   * A zero-delay delivery happened in a read callback: linger as after a timed one, so the reply
   * does not find the proxy asleep, but only while one connection is exchanging data. Measured
   * side by side (redis-benchmark GET, proxies warmed up, alternating runs, 6 rounds):
   * -c 1 -P 1 lingering 12.2-12.7k rps vs 10.6-11.0k for a bare Node pipe (PING hop 37 vs 66 us
   * without it); -c 2 -P 1 lingering 13.5-15.8k rps at 63-74 us of proxy CPU per request vs
   * 14.8-17.1k at 50-56 us without; -c 50 -P 16 no difference within the noise. So lingering pays
   * for one sequential client and costs CPU (on a 2-core machine, Redis's CPU) for several.
   */
  delivered(nowNs: number, source: DeliverySource): void {
    if (this.lingerNs <= 0) return;
    if (nowNs - this.windowStartNs >= this.lingerNs) {
      this.sourcesBefore = nowNs - this.windowStartNs < 2 * this.lingerNs ? this.sourcesInWindow : 0;
      this.sourcesInWindow = 0;
      this.window++;
      this.windowStartNs = nowNs;
    }
    if (source.activeWindow !== this.window) {
      source.activeWindow = this.window;
      this.sourcesInWindow++;
    }
    if (Math.max(this.sourcesBefore, this.sourcesInWindow) > this.maxLingerSources) return;
    this.hotUntilNs = Math.max(this.hotUntilNs, nowNs + this.lingerNs);
    if (this.heap.length === 0) this.startPolling();
  }
  /** Activity windows (one linger long) for counting the sources that deliver at once. */
  private window = 0;
  private windowStartNs = -Infinity;
  private sourcesInWindow = 0;
  private sourcesBefore = 0;

  /** Timers waiting (for tests and stats). */
  get size(): number {
    return this.heap.length;
  }

  private arm(): void {
    const head = this.heap[0];
    if (!head) {
      this.clearCoarse();
      return;
    }
    const waitNs = head.dueNs - this.clock.nowNs();
    if (waitNs <= this.spinWindowNs) {
      this.clearCoarse();
      this.startPolling();
      return;
    }
    const wakeNs = head.dueNs - this.spinWindowNs;
    if (this.coarse && this.coarseDueNs <= wakeNs) return;
    this.clearCoarse();
    this.coarseDueNs = wakeNs;
    this.coarse = setTimeout(this.onCoarse, Math.max(0, Math.floor((waitNs - this.spinWindowNs) / 1e6)));
  }

  private readonly onCoarse = (): void => {
    this.coarse = undefined;
    this.coarseDueNs = Infinity;
    this.arm();
  };

  private startPolling(): void {
    if (this.polling) return;
    this.polling = true;
    setImmediate(this.poll);
  }

  private readonly poll = (): void => {
    this.polling = false;
    if (this.runDue()) this.hotUntilNs = this.clock.nowNs() + this.lingerNs;
    if (this.heap.length === 0 && this.lingerNs > 0 && this.clock.nowNs() < this.hotUntilNs) {
      // Stay awake a little after a delivery: the reply (or the next request) usually follows
      // within tens of microseconds, and waking a sleeping process costs about that much again.
      this.startPolling();
      return;
    }
    this.arm();
  };
  private hotUntilNs = 0;

  private runDue(): boolean {
    const now = this.clock.nowNs();
    let fired = false;
    for (;;) {
      const head = this.heap[0];
      if (!head || head.dueNs > now) return fired;
      this.removeAt(0);
      head.index = -1;
      head.fire();
      fired = true;
    }
  }

  private clearCoarse(): void {
    if (this.coarse) {
      clearTimeout(this.coarse);
      this.coarse = undefined;
      this.coarseDueNs = Infinity;
    }
  }

  // --- binary min-heap on dueNs ---
  private push(t: Timer): void {
    t.index = this.heap.length;
    this.heap.push(t);
    this.up(t.index);
  }

  private removeAt(i: number): void {
    const last = this.heap.pop()!;
    if (i < this.heap.length) {
      this.heap[i] = last;
      last.index = i;
      this.down(i);
      this.up(last.index);
    }
  }

  private up(i: number): void {
    const h = this.heap;
    const t = h[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p]!;
      if (parent.dueNs <= t.dueNs) break;
      h[i] = parent;
      parent.index = i;
      i = p;
    }
    h[i] = t;
    t.index = i;
  }

  private down(i: number): void {
    const h = this.heap;
    const n = h.length;
    const t = h[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && h[r]!.dueNs < h[l]!.dueNs ? r : l;
      const child = h[c]!;
      if (child.dueNs >= t.dueNs) break;
      h[i] = child;
      child.index = i;
      i = c;
    }
    h[i] = t;
    t.index = i;
  }
}

/** A scheduler driven by hand with a FakeClock: `runUntil(ns)` fires what is due, in order. */
export class ManualScheduler implements Scheduler {
  private readonly timers: Timer[] = [];
  constructor(readonly clock: Clock & { setNs(ns: number): void }) {}

  schedule(dueNs: number, fire: () => void): Timer {
    const t: Timer = { dueNs, index: 0, fire };
    this.timers.push(t);
    return t;
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
