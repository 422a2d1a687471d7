/**
 * A link that changes over time, run on the proxy's clock from its start: `--rtt-wave` and
 * `--rtt-series` move the delays per chunk (link/delay-shape.ts); `--link-schedule` applies its
 * steps on timers, each one as PUT /link would (so a recording hears of it), a ramp moving the
 * delays from the old ones to the step's, a partition step starting a partition.
 */
import { ConfigError } from '../errors.js';
import type { LinkState } from '../link/link-state.js';
import type { RttSeries } from '../link/rtt-series.js';
import type { LinkSchedule, ScheduleStep } from '../link/schedule.js';
import type { LinkUpdate } from '../link/types.js';
import type { RttWave } from '../link/wave.js';
import type { SkippedStep, TimelineReport } from '../link/timeline-report.js';
import type { Scheduler, Timer } from '../stage/types.js';
import type { PartitionRequest } from '../link/partition.js';

export interface LinkTimelineOptions {
  wave?: RttWave;
  series?: RttSeries;
  /** Keep the series' last value at its end instead of starting over. */
  seriesOnce?: boolean;
  schedule?: LinkSchedule;
}

export class LinkTimeline {
  private originNs = 0;
  private step = -1;
  private pass = 0;
  private skipped = 0;
  private lastSkipped: SkippedStep | undefined;
  /** A loop fell a period behind and skipped passes (skipMissedPasses): said once in the log. */
  private fellBehind = false;
  private timer: Timer | undefined;
  private rampEnd: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly o: LinkTimelineOptions,
    private readonly scheduler: Scheduler,
    private readonly link: LinkState,
    private readonly setLink: (update: LinkUpdate & { preset?: string }) => void,
    private readonly partitions: ScheduledPartitions,
    private readonly log: (line: string) => void,
  ) {}

  get moving(): boolean {
    return this.o.wave !== undefined || this.o.series !== undefined || this.o.schedule !== undefined;
  }

  start(): void {
    if (!this.moving) return;
    const originNs = (this.originNs = this.scheduler.clock.nowNs());
    const { wave, series } = this.o;
    if (wave || series) {
      this.link.reshape((s) => {
        s.setWave(wave, originNs);
        s.setSeries(series, this.o.seriesOnce ?? false, originNs);
      });
    }
    this.armNext();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.scheduler.cancel(this.timer);
    if (this.rampEnd) this.scheduler.cancel(this.rampEnd);
  }

  /** A ramp under way ends where it is: the delays given now hold at once (PUT /link, setLink). */
  endRamp(): void {
    if (this.rampEnd === undefined || this.rampEnd.index < 0) return;
    this.scheduler.cancel(this.rampEnd);
    this.rampEnd = undefined;
    this.link.reshape((s) => s.setRamp(undefined));
  }

  report(): TimelineReport | undefined {
    if (!this.moving) return undefined;
    const nowNs = this.scheduler.clock.nowNs();
    const out: TimelineReport = { elapsedMs: Math.round((nowNs - this.originNs) / 1e6), delaysUs: this.link.delaysNowUs() };
    if (this.o.wave) out.wave = this.o.wave;
    const row = this.link.shape.seriesRowAt(nowNs);
    if (row) out.series = { ...row, once: this.o.seriesOnce ?? false };
    const sch = this.o.schedule;
    if (sch) {
      const next = this.nextDueNs();
      out.schedule = { step: this.step, steps: sch.steps.length, loop: this.pass, skipped: this.skipped };
      if (next !== undefined) out.schedule.nextAtMs = Math.round((next - this.originNs) / 1e6);
      if (this.lastSkipped) out.schedule.lastSkipped = { ...this.lastSkipped };
    }
    return out;
  }

  /** When the step after the current one is due, on the clock; undefined at the end of a run-once schedule. */
  private nextDueNs(): number | undefined {
    const sch = this.o.schedule;
    if (!sch) return undefined;
    let index = this.step + 1;
    let pass = this.pass;
    if (index >= sch.steps.length) {
      if (sch.periodUs === undefined) return undefined;
      index = 0;
      pass++;
    }
    return this.originNs + (pass * (sch.periodUs ?? 0) + sch.steps[index]!.atUs) * 1000;
  }

  private armNext(): void {
    this.skipMissedPasses();
    const dueNs = this.nextDueNs();
    if (dueNs === undefined || this.stopped) return;
    this.timer = this.scheduler.schedule(dueNs, () => {
      const steps = this.o.schedule!.steps;
      if (this.step + 1 >= steps.length) {
        this.step = -1;
        this.pass++;
      }
      this.step++;
      try {
        this.apply(steps[this.step]!, dueNs);
      } catch (err) {
        // The start checked the steps over the start link, but a PUT /link since may leave one that
        // does not fit (a burst too short for the loss it set): refused whole, as PUT /link would be,
        // and logged; thrown from this timer it ended the proxy, and the schedule with it.
        if (!(err instanceof ConfigError)) throw err;
        this.skipped++;
        this.lastSkipped = { step: this.step, loop: this.pass, reason: err.message };
        this.log(`--link-schedule steps[${this.step}] skipped: ${err.message}`);
      }
      this.armNext();
    });
  }

  /**
   * A loop a whole period or more behind (the proxy was held up, or its steps come closer than it
   * can apply them: each is a whole link change) goes on from the pass that holds now. Replayed step
   * by step, a loop whose steps cost more than their gaps fell further behind each time the scheduler
   * caught it up, and the proxy stopped answering (`"period": "100us"`).
   */
  private skipMissedPasses(): void {
    const periodUs = this.o.schedule?.periodUs;
    const dueNs = this.nextDueNs();
    if (periodUs === undefined || dueNs === undefined) return;
    const periodNs = periodUs * 1000;
    const passes = Math.floor((this.scheduler.clock.nowNs() - dueNs) / periodNs);
    if (passes < 1) return;
    this.pass += passes;
    if (!this.fellBehind) {
      this.fellBehind = true;
      this.log(`--link-schedule fell ${passes} pass(es) behind its loop (the proxy was held up, or its steps come closer than it can apply them): skipped to the pass that holds now (logged once)`);
    }
  }

  private apply(step: ScheduleStep, dueNs: number): void {
    // Before the link: a partition that cannot start (a PUT /link's still runs) skips the step whole, as
    // an unfit link does. Started after the link took it, the step's delays changed and its partition
    // was only logged, not counted as skipped.
    if (step.partition) this.partitions.check(step.partition);
    if (step.link) {
      // From the configured delays (a ramp before this one has ended by now; a wave stays on top).
      const { upUs, downUs } = this.link.settings;
      this.setLink(step.link);
      if (step.rampUs !== undefined) {
        const durationNs = step.rampUs * 1000;
        this.link.reshape((s) => s.setRamp({ fromUs: { up: upUs, down: downUs }, startNs: dueNs, durationNs }));
        if (this.rampEnd) this.scheduler.cancel(this.rampEnd);
        // At its end the ramp goes, so a link that is not otherwise moving is constant again.
        this.rampEnd = this.scheduler.schedule(dueNs + durationNs, () => this.link.reshape((s) => s.setRamp(undefined)));
      }
    }
    // From the step's time, not when its timer fired: one late under load ended late, and the
    // schedule's next partition, refused while it ran, was skipped.
    if (step.partition) this.partitions.start({ ...step.partition, startNs: dueNs });
  }
}

/** What a partition step asks of the proxy (partitions.ts): a ConfigError when one cannot start now, and the start. */
export interface ScheduledPartitions {
  check(request: PartitionRequest): void;
  start(request: PartitionRequest): void;
}
