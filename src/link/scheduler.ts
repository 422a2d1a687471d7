import { realClock, type Clock } from '../clock.js';
import type { DeliverySource, PollRunEnd, Scheduler, Timer, WakeListener } from '../stage/types.js';
import { Linger } from './linger.js';
import { PollAccount } from './poll-account.js';
import { PollBudget } from './poll-budget.js';
import { PollTurns } from './poll-turns.js';
import { newTimer, TimerHeap } from './timer-heap.js';
import { WakeListeners } from './wake-listeners.js';
import { checkSchedulerOptions, MAX_HOLD_NS, type PreciseSchedulerOptions } from './scheduler-options.js';
import { MAX_EARLY_NS, openWaker, SleepMargins, TimeoutWaker, wakeKindOf, WakeLearner, type Waker, type WakeKind } from './waker.js';

/**
 * Sleeps until shortly before the earliest deadline (the timerfd alarm, the timer thread, or
 * setTimeout: waker.ts), sleeps again when the wake left room for a short sleep, polls the clock
 * with setImmediate for what is left, and spins through the last few microseconds. How early
 * to wake is learned from how late the wakes come, so the poll stays short on a quiet machine and
 * grows on a loaded one. All timers share one heap, so a thousand connections cost one poll loop,
 * not a thousand.
 */
export class PreciseScheduler implements Scheduler {
  readonly clock: Clock;
  private readonly heap = new TimerHeap();
  private readonly account: PollAccount;
  private readonly fixedEarlyNs: number | undefined;
  private readonly spinNs: number;
  private readonly quietSpinNs: number;
  private readonly maxFiresPerTurn: number;
  /** When to keep polling after a delivery (linger.ts). */
  private readonly linger: Linger;
  private readonly budget: PollBudget;
  private readonly wakeKind: WakeKind;
  private waker: Waker | undefined;
  /** How late wakes come, after long sleeps and after short ones. */
  private readonly margins: SleepMargins;
  /** The learner of the wake asked for. */
  private askedLearner: WakeLearner;
  /** The wake time asked of the waker, for learning how late it comes; Infinity when none. */
  private askedNs = Infinity;
  private polling = false;
  private readonly turns: PollTurns;
  private readonly wakeListeners = new WakeListeners();

  constructor(options: PreciseSchedulerOptions = {}) {
    checkSchedulerOptions(options);
    this.clock = options.clock ?? realClock;
    this.account = new PollAccount(this.clock);
    const real = this.clock === realClock;
    this.wakeKind = options.wake ?? (real ? 'timerfd' : 'timeout');
    this.fixedEarlyNs = options.spinWindowNs;
    this.spinNs = options.spinNs ?? (real ? 20_000 : 0);
    this.maxFiresPerTurn = options.maxFiresPerTurn ?? 8;
    this.quietSpinNs = Math.max(this.spinNs, options.quietSpinNs ?? (real ? MAX_EARLY_NS : 0));
    const maxSources = options.maxLingerSources ?? 2;
    this.linger = new Linger({
      lingerNs: options.lingerNs ?? 1_000_000,
      maxSources,
      untimedNs: options.lingerUntimedNs ?? 100_000_000,
      timedNs: options.timedLingerNs ?? (real ? 100_000 : 0),
    });
    this.budget = new PollBudget(options.maxPollShare ?? 0.05, maxSources);
    this.margins = new SleepMargins(this.wakeKind);
    this.askedLearner = this.margins.long;
    this.turns = new PollTurns(this.poll, real && (options.turnHook ?? true));
    // The thread takes tens of milliseconds to start: start it now, not at the first delivery.
    if (this.wakeKind !== 'timeout') this.openWaker();
  }

  schedule(dueNs: number, fire: () => void): Timer {
    const timer = newTimer(fire);
    this.arm(timer, dueNs);
    return timer;
  }

  arm(timer: Timer, dueNs: number): void {
    if (timer.index >= 0) this.heap.removeAt(timer.index);
    // A read queued at a line with none waiting; the clock is read only for the first after a timed delivery.
    else if (this.heap.length === 0 && !this.firing && this.linger.awaitingRead) this.linger.read(this.clock.nowNs());
    timer.dueNs = dueNs;
    this.heap.push(timer);
    if (timer.index === 0) this.plan();
  }

  cancel(timer: Timer): void {
    if (timer.index < 0) return;
    this.heap.removeAt(timer.index);
    timer.index = -1;
    // The last one: disarm, or the alarm would keep a process whose proxies have closed alive until
    // it rang. A head cancelled with others left only makes one wake early, which plans again.
    if (this.heap.length === 0) this.plan();
  }

  /** How early a wake after a long sleep is asked for: the fixed window, or what the wakes taught. */
  get earlyNs(): number {
    return this.fixedEarlyNs ?? this.margins.long.earlyNs;
  }

  /** Gives back the alarm or the timer thread's slot. The scheduler still works after, on setTimeout. */
  close(): void {
    this.waker?.close();
    this.waker = new TimeoutWaker(this.onWake);
    this.turns.close(this.polling);
    // A sleep under way goes on on the new waker: the closed one will not wake.
    if (!this.polling) this.plan();
  }

  /**
   * A zero-delay delivery happened in a read callback: linger, so the reply does not find the
   * proxy asleep, but only while one connection is exchanging data (lingering pays for one
   * sequential client and costs CPU, on a 2-core machine Redis's CPU, for several) and only on
   * links with no delay (docs/precision.md has the measurements). It is also a read that came in,
   * which the timed linger learns from and ends at.
   */
  delivered(nowNs: number, source: DeliverySource): void {
    if (this.linger.zeroDelay(nowNs, source) && this.heap.length === 0) this.startPolling();
  }

  /**
   * A burst of accepts is being set up (a few hundred microseconds each, in one run of callbacks):
   * fire what fell due, so deliveries wait for one set-up, not for all of them. Not in reads: there
   * the deliveries due within a batch would leave one by one among its reads instead of together
   * after them, which cost a fifth of the throughput at 1 ms with 50 clients (docs/precision.md).
   */
  catchUp(nowNs: number): void {
    const head = this.heap.head;
    if (head === undefined || head.dueNs > nowNs) return;
    this.catchingUp = true;
    try {
      this.runDue(nowNs);
    } finally {
      this.catchingUp = false;
    }
    this.plan();
  }
  /** Within catchUp: the re-arms of the lines that fired plan once, after. */
  private catchingUp = false;
  /** Within a timer's fire(): its line arming again for what it still holds is not a read. */
  private firing = false;

  /** Timers waiting (for tests and stats). */
  get size(): number {
    return this.heap.length;
  }

  /** Sleep until shortly before the head's deadline, or poll when it is too close to sleep. */
  private plan(): void {
    if (this.polling || this.catchingUp) return; // the poll (catchUp) plans again after its turn
    const head = this.heap.head;
    const waker = this.waker ?? this.openWaker();
    if (!head) {
      waker.clear();
      this.askedNs = Infinity;
      return;
    }
    const now = this.clock.nowNs();
    // Past the poll budget, wake for the deadline itself: a precise wake is a little late, but
    // every delivery due by then leaves in that one turn, and the CPU stays with the traffic.
    const overBudget = this.overBudget(now) && waker.precise;
    const learner = this.margins.for(head.dueNs - now);
    const wakeAtNs = head.dueNs - (overBudget ? 0 : (this.fixedEarlyNs ?? learner.earlyNs));
    const minSleepNs = overBudget ? 0 : waker.minSleepNs;
    if (wakeAtNs - now < minSleepNs || (overBudget && head.dueNs - now <= this.spinNs)) {
      waker.clear();
      this.askedNs = Infinity;
      this.startPolling();
      return;
    }
    this.askedNs = wakeAtNs;
    this.askedLearner = learner;
    waker.set(wakeAtNs, now);
  }

  private overBudget(nowNs: number): boolean {
    return this.budget.over(nowNs, this.account.spanNs());
  }

  private openWaker(): Waker {
    const onThreadLost = (): void => {
      this.waker = new TimeoutWaker(this.onWake);
      this.plan();
    };
    return (this.waker = openWaker(this.wakeKind, this.onWake, onThreadLost));
  }

  private readonly onWake = (): void => {
    const askedNs = this.askedNs;
    if (askedNs !== Infinity) {
      const nowNs = this.clock.nowNs();
      this.askedLearner.observe(askedNs, nowNs);
      this.wakeListeners.woke(nowNs - askedNs, nowNs);
    }
    this.askedNs = Infinity;
    this.plan();
  };

  watchWakes(listener: WakeListener): () => void {
    return this.wakeListeners.add(listener);
  }

  private startPolling(): void {
    if (this.polling) return;
    this.polling = true;
    this.account.polling();
    this.turns.next();
  }

  /** The self-report's view of the loop (poll-account.ts). */
  get pollNs(): number {
    return this.account.pollNs;
  }
  get spunNs(): number {
    return this.account.spunNs;
  }
  get idleAtSpinEndMs(): number {
    return this.account.idleAtSpinEndMs;
  }
  get chainedPollStartNs(): number {
    return this.account.chainedPollStartNs;
  }

  /**
   * How long a main thread that slept `sleptNs` takes to run once woken, learned: the loop's share
   * of the lateness of the scheduler's own wakes after sleeps as long (waker.ts `loopShare`;
   * SleepMargins keeps sleeps under a millisecond apart, which wake several times sooner).
   */
  wakeAfterNs(sleptNs: number): number {
    return (this.waker?.loopShare ?? 0) * this.margins.for(sleptNs).meanLateNs;
  }

  get lastTurnEndNs(): number {
    return this.account.lastTurnEndNs;
  }
  get lastRunEnd(): Readonly<PollRunEnd> {
    return this.account.lastRunEnd;
  }

  /** What the scheduler sleeps on now (a fallback when the one asked for was not to be had). */
  get wakeKindInUse(): WakeKind {
    return wakeKindOf(this.waker);
  }

  private readonly poll = (): void => {
    this.polling = false;
    const startNs = this.clock.nowNs();
    let fired = this.runDue(startNs, this.maxFiresPerTurn);
    const head = this.heap.head;
    if (head && head.dueNs > startNs) {
      const spinStartNs = this.clock.nowNs();
      const overBudget = this.overBudget(spinStartNs);
      const limitNs = overBudget ? this.spinNs : this.quietSpinNs;
      const leftNs = head.dueNs - spinStartNs;
      // A wake that came early enough for another, short sleep takes it rather than spin: a short
      // sleep's wake is cheaper and less late than the long one's (plan() below arms it).
      if (limitNs > 0 && leftNs <= limitNs && !this.sleepsAgain(leftNs, overBudget)) {
        // So close that another loop turn would cost more than it waits: spin, then fire.
        const dueNs = head.dueNs;
        let nowNs = spinStartNs;
        while (nowNs < dueNs) nowNs = this.clock.nowNs(); // no allocation, no loop turn
        this.account.spun(spinStartNs, nowNs);
        fired = this.runDue(nowNs, this.maxFiresPerTurn) || fired;
      }
    }
    const endNs = this.clock.nowNs();
    this.linger.turnEnded(endNs, fired, fired && this.budget.fewTimers());
    // Stay awake a little after a delivery: the reply (or the next request) usually follows
    // within tens of microseconds, and waking a sleeping process costs about that much.
    if (this.heap.length === 0 && this.linger.hot(endNs)) this.startPolling();
    else this.plan();
    if (!this.polling) this.turns.ended();
    this.account.turnEnded(startNs, endNs, this.polling);
  };

  /** Whether `leftNs` before the head's deadline is enough for a short sleep (fixed margins never sleep twice). */
  private sleepsAgain(leftNs: number, overBudget: boolean): boolean {
    const w = this.waker;
    if (w === undefined || !w.precise || overBudget || this.fixedEarlyNs !== undefined) return false;
    return leftNs - this.margins.short.earlyNs >= w.minSleepNs;
  }

  /**
   * Fires what is due by `now`, at most `max` of them unless the next is already `MAX_HOLD_NS`
   * late: a cap that held deliveries back without bound would let them fall ever further behind
   * when more come due each turn than it lets out (hundreds of busy connections).
   */
  private runDue(now: number, max = Infinity): boolean {
    let fired = false;
    for (let n = 0; ; n++) {
      const head = this.heap.head;
      if (!head || head.dueNs > now) return fired;
      if (n >= max && now - head.dueNs < MAX_HOLD_NS) return fired;
      this.heap.removeAt(0);
      head.index = -1;
      this.budget.fired(head);
      this.firing = true;
      head.fire();
      this.firing = false;
      fired = true;
      this.linger.timedLeft(now);
    }
  }
}
