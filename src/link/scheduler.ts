import { realClock, type Clock } from '../clock.js';
import type { DeliverySource, Scheduler, Timer } from '../stage/types.js';
import { ThreadWaker, TimeoutWaker, WakeLearner, type Waker, type WakeKind } from './waker.js';

/** A timer, unarmed. A delay line keeps one and arms it again for each next chunk. */
export function newTimer(fire: () => void): Timer {
  return { dueNs: 0, index: -1, firedWindow: -1, fire };
}

export interface PreciseSchedulerOptions {
  clock?: Clock;
  /**
   * How the scheduler sleeps until shortly before a deadline: `thread`, the process's timer thread
   * (fractional milliseconds), or `timeout`, Node's setTimeout (whole milliseconds, often late).
   * @default 'thread' with the real clock, 'timeout' with any other
   */
  wake?: WakeKind;
  /**
   * A fixed margin: poll the clock with setImmediate for this long before each deadline instead of
   * the margin learned from how late wakes come. @default learned
   */
  spinWindowNs?: number;
  /**
   * Once a deadline is this close, wait for it in a busy loop inside the current turn instead of
   * another turn of the event loop (which costs an Immediate and a poll). @default 20 us (real
   * clock), 0 (any other: a fake clock never moves by itself)
   */
  spinNs?: number;
  /**
   * The same, while the scheduler is under its poll budget (few deliveries: one connection's):
   * a busy loop through the whole wake margin makes no garbage, where polling makes an Immediate
   * per turn. Reads that come meanwhile wait for it, so it is kept short. @default 200 us (real
   * clock), 0 (any other)
   */
  quietSpinNs?: number;
  /**
   * Keep polling this long after a zero-delay delivery, so the reply or next request that usually
   * follows within tens of microseconds does not pay a sleeping process's wake-up. Costs CPU only
   * while traffic flows. @default 1 ms
   */
  lingerNs?: number;
  /**
   * Zero-delay deliveries linger only while at most this many sources (delay lines; a connection
   * has two) delivered in the current or the previous linger window. With more, the traffic
   * itself keeps the process awake and polling only takes CPU from Redis and the clients.
   * @default 2 (one connection)
   */
  maxLingerSources?: number;
  /**
   * The most of its time the scheduler polls for precision: past this share (of the last 10-20 ms)
   * it sleeps on the timer thread until each deadline itself, which costs the thread's wake
   * (tens of microseconds late) instead of a core. Dense deliveries (many connections) reach it;
   * one connection's do not. @default 0.25
   */
  maxPollShare?: number;
  /**
   * Linger after timed deliveries too (the behaviour before the timer thread). With a delay, what
   * follows a delivery comes a round trip later, so lingering there buys little and polls for it.
   * @default false
   */
  lingerAfterTimed?: boolean;
}

/** How often the share of time spent polling is taken. */
const SHARE_WINDOW_NS = 10_000_000;

/**
 * Bounds of the learned wake margin. At least the thread's hop (tens of microseconds at best); at
 * most 0.5 ms: on a loaded machine wakes come late because the process waits for a CPU, which an
 * earlier wake does not avoid, and polling longer only makes it a worse sleeper for the OS
 * scheduler (it is then run later still).
 */
const MIN_EARLY_NS = 30_000;
const MAX_EARLY_NS = 500_000;

/**
 * Sleeps until shortly before the earliest deadline (the timer thread, or setTimeout), polls the
 * clock with setImmediate for what is left, and spins through the last few microseconds. How early
 * to wake is learned from how late the wakes come, so the poll stays short on a quiet machine and
 * grows on a loaded one. All timers share one heap, so a thousand connections cost one poll loop,
 * not a thousand.
 */
export class PreciseScheduler implements Scheduler {
  readonly clock: Clock;
  private readonly heap: Timer[] = [];
  private readonly fixedEarlyNs: number | undefined;
  private readonly spinNs: number;
  private readonly quietSpinNs: number;
  private readonly lingerNs: number;
  private readonly maxLingerSources: number;
  private readonly lingerAfterTimed: boolean;
  private readonly maxPollShare: number;
  private readonly wakeKind: WakeKind;
  private waker: Waker | undefined;
  private readonly learner: WakeLearner;
  /** The wake time asked of the waker, for learning how late it comes; Infinity when none. */
  private askedNs = Infinity;
  private polling = false;
  private hotUntilNs = 0;

  constructor(options: PreciseSchedulerOptions = {}) {
    this.clock = options.clock ?? realClock;
    const real = this.clock === realClock;
    this.wakeKind = options.wake ?? (real ? 'thread' : 'timeout');
    this.fixedEarlyNs = options.spinWindowNs;
    this.spinNs = options.spinNs ?? (real ? 20_000 : 0);
    this.quietSpinNs = Math.max(this.spinNs, options.quietSpinNs ?? (real ? 200_000 : 0));
    this.lingerNs = options.lingerNs ?? 1_000_000;
    this.maxLingerSources = options.maxLingerSources ?? 2;
    this.lingerAfterTimed = options.lingerAfterTimed ?? false;
    this.maxPollShare = options.maxPollShare ?? 0.25;
    this.learner = new WakeLearner(this.wakeKind === 'thread' ? 200_000 : 1_000_000, MIN_EARLY_NS, MAX_EARLY_NS);
    // The thread takes tens of milliseconds to start: start it now, not at the first delivery.
    if (this.wakeKind === 'thread') this.openWaker();
  }

  schedule(dueNs: number, fire: () => void): Timer {
    const timer = newTimer(fire);
    this.arm(timer, dueNs);
    return timer;
  }

  arm(timer: Timer, dueNs: number): void {
    if (timer.index >= 0) this.removeAt(timer.index);
    timer.dueNs = dueNs;
    this.push(timer);
    if (timer.index === 0) this.plan();
  }

  cancel(timer: Timer): void {
    if (timer.index < 0) return;
    this.removeAt(timer.index);
    timer.index = -1;
  }

  /** How early a wake is asked for: the fixed window, or what the wakes taught. */
  get earlyNs(): number {
    return this.fixedEarlyNs ?? this.learner.earlyNs;
  }

  /** Gives back the timer thread's slot. The scheduler still works after, on setTimeout. */
  close(): void {
    this.waker?.close();
    this.waker = new TimeoutWaker(this.onWake);
  }

  /**
   * A zero-delay delivery happened in a read callback: linger as after a timed one, so the reply
   * does not find the proxy asleep, but only while one connection is exchanging data (lingering
   * pays for one sequential client and costs CPU, on a 2-core machine Redis's CPU, for several;
   * docs/precision.md has the measurements).
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

  /** Sleep until shortly before the head's deadline, or poll when it is too close to sleep. */
  private plan(): void {
    if (this.polling) return; // the poll plans again after its turn
    const head = this.heap[0];
    const waker = this.waker ?? this.openWaker();
    if (!head) {
      waker.clear();
      this.askedNs = Infinity;
      return;
    }
    const now = this.clock.nowNs();
    // Past the poll budget, wake for the deadline itself: the thread's wake is a little late, but
    // every delivery due by then leaves in that one turn, and the CPU stays with the traffic.
    const overBudget = this.overBudget(now) && waker instanceof ThreadWaker;
    const wakeAtNs = head.dueNs - (overBudget ? 0 : this.earlyNs);
    const minSleepNs = overBudget ? 0 : waker.minSleepNs;
    if (wakeAtNs - now < minSleepNs || (overBudget && head.dueNs - now <= this.spinNs)) {
      waker.clear();
      this.askedNs = Infinity;
      this.startPolling();
      return;
    }
    this.askedNs = wakeAtNs;
    waker.set(wakeAtNs, now);
  }

  /**
   * The share of the recent past (10 to 20 ms: the window before this one and this one so far)
   * spent polling. Running, so the budget holds within a window instead of swinging between
   * windows of all and none.
   */
  private pollShare(nowNs: number): number {
    const pollNs = this.pollSpanNs();
    if (nowNs - this.shareStartNs >= SHARE_WINDOW_NS) {
      this.prevShareStartNs = this.shareStartNs;
      this.prevSharePollNs = this.sharePollNs;
      this.shareStartNs = nowNs;
      this.sharePollNs = pollNs;
      this.timersBefore = this.timersInWindow;
      this.timersInWindow = 0;
      this.shareWindow++;
    }
    const spanNs = nowNs - this.prevShareStartNs;
    return spanNs > 0 ? (pollNs - this.prevSharePollNs) / spanNs : 0;
  }
  /**
   * Past the budget only while more timers than one connection's two fire in the window (the one
   * before or this one): many connections' deliveries are what the budget is for. One connection
   * with a short delay keeps all its precision, as it keeps its linger.
   */
  private overBudget(nowNs: number): boolean {
    return this.pollShare(nowNs) > this.maxPollShare && Math.max(this.timersBefore, this.timersInWindow) > this.maxLingerSources;
  }
  private shareWindow = 0;
  private timersInWindow = 0;
  private timersBefore = 0;
  private prevShareStartNs = 0;
  private prevSharePollNs = 0;
  private shareStartNs = 0;
  private sharePollNs = 0;

  private openWaker(): Waker {
    const onThreadLost = (): void => {
      this.waker = new TimeoutWaker(this.onWake);
      this.plan();
    };
    this.waker =
      (this.wakeKind === 'thread' ? ThreadWaker.open(this.onWake, onThreadLost) : undefined) ??
      new TimeoutWaker(this.onWake);
    return this.waker;
  }

  private readonly onWake = (): void => {
    if (this.askedNs !== Infinity) this.learner.observe(this.askedNs, this.clock.nowNs());
    this.askedNs = Infinity;
    this.plan();
  };

  private startPolling(): void {
    if (this.polling) return;
    this.polling = true;
    if (this.spanStartNs < 0) this.spanStartNs = this.clock.nowNs();
    setImmediate(this.poll);
  }

  /**
   * Wall time the loop spent polling (from the first poll turn of a run of them to the last),
   * cumulative, less the busy-waits: while it polls, a read waits at most one short turn, so the
   * self-report's read-wait estimate does not count this time as a stall (a busy-wait it does).
   */
  get pollNs(): number {
    return this.pollSpanNs() - this.spunNs;
  }

  /** Wall time of all poll runs, busy-waits included (what the poll budget counts). */
  private pollSpanNs(): number {
    return this.spanStartNs < 0 ? this.pollDoneNs : this.pollDoneNs + (this.clock.nowNs() - this.spanStartNs);
  }
  private pollDoneNs = 0;
  /** Time spent in busy-waits: the loop was blocked then, a read that came waited for it. */
  private spunNs = 0;
  /** When the current run of poll turns began; -1 while not polling. */
  private spanStartNs = -1;

  /**
   * How long a sleeping main thread takes to run once woken, learned: half a timer-thread wake's
   * lateness (it is two wakes, the thread's and the loop's); 0 with setTimeout wakes.
   */
  get wakeNs(): number {
    return this.waker instanceof ThreadWaker ? this.learner.meanLateNs / 2 : 0;
  }

  private readonly poll = (): void => {
    this.polling = false;
    let fired = this.runDue(this.clock.nowNs());
    const head = this.heap[0];
    if (head) {
      const spinStartNs = this.clock.nowNs();
      const limitNs = this.overBudget(spinStartNs) ? this.spinNs : this.quietSpinNs;
      if (limitNs > 0 && head.dueNs - spinStartNs <= limitNs) {
        // So close that another loop turn would cost more than it waits: spin, then fire.
        const dueNs = head.dueNs;
        let nowNs = spinStartNs;
        while (nowNs < dueNs) nowNs = this.clock.nowNs(); // no allocation, no loop turn
        this.spunNs += nowNs - spinStartNs;
        fired = this.runDue(nowNs) || fired;
      }
    }
    const endNs = this.clock.nowNs();
    if (fired && this.lingerAfterTimed) this.hotUntilNs = endNs + this.lingerNs;
    if (this.heap.length === 0 && this.lingerNs > 0 && endNs < this.hotUntilNs) {
      // Stay awake a little after a zero-delay delivery: the reply (or the next request) usually
      // follows within tens of microseconds, and waking a sleeping process costs about that much.
      this.startPolling();
      return;
    }
    this.plan();
    if (!this.polling) {
      this.pollDoneNs += endNs - this.spanStartNs;
      this.spanStartNs = -1;
    }
  };

  private runDue(now: number): boolean {
    let fired = false;
    for (;;) {
      const head = this.heap[0];
      if (!head || head.dueNs > now) return fired;
      this.removeAt(0);
      head.index = -1;
      if (head.firedWindow !== this.shareWindow) {
        head.firedWindow = this.shareWindow;
        this.timersInWindow++;
      }
      head.fire();
      fired = true;
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

let processScheduler: PreciseScheduler | undefined;

/**
 * The process's scheduler, for every proxy started without one of its own: one heap, one poll and
 * one timer-thread slot however many proxies a process runs.
 */
export function sharedScheduler(): PreciseScheduler {
  return (processScheduler ??= new PreciseScheduler());
}
