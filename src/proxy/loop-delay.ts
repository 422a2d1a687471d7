/**
 * The event loop's delay, sampled as `perf_hooks.monitorEventLoopDelay` samples it (how late a
 * timer's callback runs), without a timer that wakes a sleeping loop for nothing. perf_hooks' own
 * timer, every 50 ms, was one more wake in each idle gap of a proxy whose clients are far away:
 * about a tenth of one such client's CPU per request at 20 ms (docs/precision.md, "The loop
 * monitor's own wakes"). So a sample every `periodMs` is the lateness of the scheduler's next wake
 * from a sleep, which happens anyway while deliveries are timed; a timer of the monitor's own
 * samples only when the scheduler has not woken for twice that, and once a second while the loop
 * slept through the time before: a wake into JavaScript costs an idle loop more than perf_hooks'
 * wake in C++ did, and an open connection with no traffic would pay it ten times a second.
 */
import { performance } from 'node:perf_hooks';
import { realClock, type Clock } from '../clock.js';
import { openAlarm } from '../link/native-alarm.js';
import { TimeoutWaker, type Waker } from '../link/waker.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { WakeListener } from '../stage/types.js';

/** What the monitor needs of the scheduler: its clock, and its wakes where it tells of them. */
export interface WakeSource {
  readonly clock?: Clock;
  watchWakes?(listener: WakeListener): () => void;
}

/** Long blocks, what the figure is there to catch, show at any period; each period more is one wake more. */
const PERIOD_MS = 50;
/** The own timer's period while the loop sleeps through whole periods. */
const ASLEEP_PERIOD_MS = 1000;
/** The share of a period asleep past which the loop counts as asleep through it. */
const ASLEEP_SHARE = 0.9;

export class LoopDelay {
  readonly histogram = new LatencyHistogram();
  private readonly clock: Clock;
  private readonly periodNs: number;
  /** The own timer's period while the loop is awake: two of ours while the scheduler's wakes can stand in, else one. */
  private readonly awakeTimerNs: number;
  /** The own timer's period now. */
  private timerNs: number;
  private lastSampleNs = -Infinity;
  /** When the own timer is due, on the scheduler's clock, and libuv's idle time when it was armed (ms). */
  private dueNs = Infinity;
  private idleAtArmMs = 0;
  /**
   * The own timer: the timerfd alarm where the addon is built, whose deadline moves with one
   * syscall and wakes nobody. A Node timer moved each sample (refresh, or clear and set) still
   * wakes the loop at the deadline it had, for Node to find nothing due: a wake a period.
   */
  private timer: Pick<Waker, 'set' | 'close'> | undefined;
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly source: WakeSource = {},
    periodMs = PERIOD_MS,
    /** libuv's idle time, ms (injectable for tests). */
    private readonly idleTimeMs: () => number = () => performance.nodeTiming.idleTime,
  ) {
    this.clock = source.clock ?? realClock;
    this.periodNs = periodMs * 1e6;
    this.awakeTimerNs = (source.watchWakes === undefined ? 1 : 2) * this.periodNs;
    this.timerNs = this.awakeTimerNs;
  }

  get enabled(): boolean {
    return this.timer !== undefined;
  }

  enable(): void {
    if (this.timer !== undefined) return;
    // An alarm of its own, not a TimerfdWaker: those are the scheduler's wakes (lab/tools/lateness-diag.mjs times them).
    this.timer = (this.clock === realClock ? openAlarm(this.onTimer) : undefined) ?? new TimeoutWaker(this.onTimer);
    this.unwatch = this.source.watchWakes?.(this.onWake);
    this.lastSampleNs = this.clock.nowNs();
    this.timerNs = this.awakeTimerNs;
    this.arm(this.lastSampleNs);
  }

  disable(): void {
    if (this.timer === undefined) return;
    this.timer.close();
    this.timer = undefined;
    this.unwatch?.();
    this.unwatch = undefined;
  }

  private readonly onWake = (lateNs: number, nowNs: number): void => {
    if (nowNs - this.lastSampleNs < this.periodNs) return;
    this.record(lateNs, nowNs);
  };

  private readonly onTimer = (): void => {
    const nowNs = this.clock.nowNs();
    const spanNs = nowNs - (this.dueNs - this.timerNs);
    const asleep = (this.idleTimeMs() - this.idleAtArmMs) * 1e6 > ASLEEP_SHARE * spanNs;
    this.timerNs = asleep ? ASLEEP_PERIOD_MS * 1e6 : this.awakeTimerNs;
    this.record(nowNs - this.dueNs, nowNs);
  };

  /** One sample, and the own timer a whole period past it. */
  private record(lateNs: number, nowNs: number): void {
    this.histogram.record(lateNs / 1000);
    this.lastSampleNs = nowNs;
    this.arm(nowNs);
  }

  private arm(nowNs: number): void {
    const timer = this.timer;
    if (timer === undefined) return;
    this.dueNs = nowNs + this.timerNs;
    this.idleAtArmMs = this.idleTimeMs();
    timer.set(this.dueNs, nowNs);
  }
}
