/**
 * The event loop's delay, sampled as `perf_hooks.monitorEventLoopDelay` samples it (how late a
 * timer's callback runs), without a timer that wakes a sleeping loop for nothing. perf_hooks' own
 * timer, every 50 ms, was one more wake in each idle gap of a proxy whose clients are far away:
 * about a tenth of one such client's CPU per request at 20 ms (docs/precision.md, "The loop
 * monitor's own wakes"). So a sample every `periodMs` is the lateness of the scheduler's next wake
 * from a sleep, which happens anyway while deliveries are timed; a timer of the monitor's own
 * samples only when the scheduler has not woken for twice that, and then wakes the loop once per
 * two periods, where perf_hooks woke it twice.
 */
import { realClock, type Clock } from '../clock.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { WakeListener } from '../stage/types.js';

/** What the monitor needs of the scheduler: its clock, and its wakes where it tells of them. */
export interface WakeSource {
  readonly clock?: Clock;
  watchWakes?(listener: WakeListener): () => void;
}

/** Long blocks, what the figure is there to catch, show at any period; each period more is one wake more. */
const PERIOD_MS = 50;

export class LoopDelay {
  readonly histogram = new LatencyHistogram();
  private readonly clock: Clock;
  private readonly periodNs: number;
  /** The own timer's period: two of ours while the scheduler's wakes can stand in, else one. */
  private readonly timerMs: number;
  private lastSampleNs = -Infinity;
  /** When the own timer was last armed, on the scheduler's clock. */
  private armedAtNs = 0;
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly source: WakeSource = {},
    periodMs = PERIOD_MS,
  ) {
    this.clock = source.clock ?? realClock;
    this.periodNs = periodMs * 1e6;
    this.timerMs = source.watchWakes === undefined ? periodMs : 2 * periodMs;
  }

  get enabled(): boolean {
    return this.timer !== undefined;
  }

  enable(): void {
    if (this.timer !== undefined) return;
    this.unwatch = this.source.watchWakes?.(this.onWake);
    this.armedAtNs = this.clock.nowNs();
    this.lastSampleNs = this.armedAtNs;
    // Not a reason to keep the process alive: it samples for as long as connections are open.
    this.timer = setTimeout(this.onTimer, this.timerMs).unref();
  }

  disable(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unwatch?.();
    this.unwatch = undefined;
  }

  private readonly onWake = (lateNs: number, nowNs: number): void => {
    if (nowNs - this.lastSampleNs < this.periodNs) return;
    this.sample(lateNs, nowNs);
  };

  private readonly onTimer = (): void => {
    const nowNs = this.clock.nowNs();
    this.sample(nowNs - this.armedAtNs - this.timerMs * 1e6, nowNs);
  };

  /** Records one sample and pushes the own timer a whole period past it (refresh re-arms one that fired). */
  private sample(lateNs: number, nowNs: number): void {
    this.histogram.record(lateNs / 1000);
    this.lastSampleNs = nowNs;
    if (this.timer === undefined) return;
    this.armedAtNs = nowNs;
    this.timer.refresh();
  }
}
