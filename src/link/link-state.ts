import { realClock, type Clock } from '../clock.js';
import { COMPENSATION, compensationAt, NO_COMPENSATION, type Compensation } from './compensation.js';
import { DelayShape } from './delay-shape.js';
import { jitterOffsetSampler, jitterSampler, meanDeviationUs, meanShiftRisk } from './jitter.js';
import { lossChain, newLossCounters, type LossCounters, type LossPath } from './loss-model.js';
import type { PartitionWindow } from './partition.js';
import { rtoNs } from './rto.js';
import { randomSeed, seededUniform, type Uniform } from './rng.js';
import { applyLinkUpdate, defaultLinkSettings } from './settings.js';
import type { LinkSettings, LinkUpdate } from './types.js';
import type { Direction } from '../stage/types.js';
import { keyPath, parseWith } from '../validation/schema.js';

export interface LinkStateOptions {
  seed?: number;
  /**
   * Microseconds subtracted from each one-way delay to pay for the proxy's own hop (the extra
   * loopback transit and event-loop wake-up a direct connection does not have) and, with a
   * calibrated table, the peers' wake-ups, so a client sees direct + configured. Floored at zero
   * delay. @default none
   */
  compensationUs?: Compensation;
  /** The clock a moving delay (a wave, a ramp, a series) is read on: the proxy's scheduler's. @default the monotonic clock */
  clock?: Clock;
}

/**
 * The live settings of one proxy's link, shared by all its connections, and the samplers that
 * turn them into per-chunk delays. Changing the settings affects chunks that arrive afterwards.
 */
export class LinkState {
  private current: LinkSettings = defaultLinkSettings();
  private readonly uniform: Uniform;
  private samplers: Record<Direction, () => number> = { up: () => 0, down: () => 0 };
  private compensation: Compensation;
  private readonly clock: Clock;
  /** What moves the delays over time; change it through `reshape`, which rebuilds the samplers. */
  readonly shape = new DelayShape();
  /** The partition that holds the link now or last did (connections accepted in it are held). */
  partition: PartitionWindow | undefined;
  /** Per direction: the loss every connection's delay line reads (changed in place, never replaced). */
  private readonly loss: Record<Direction, LossPath>;
  private lossEver = false;
  readonly seed: number;

  constructor(initial: LinkUpdate & { preset?: string } = {}, options: LinkStateOptions = {}) {
    this.seed = options.seed ?? randomSeed();
    this.uniform = seededUniform(this.seed);
    this.compensation = options.compensationUs ?? NO_COMPENSATION;
    this.clock = options.clock ?? realClock;
    // Its own stream of draws, so turning loss on leaves the jitter a seed gives as it was.
    const lossUniform = seededUniform(this.seed ^ 0x5eed1055);
    const path = (): LossPath => ({
      rate: 0,
      rateAfterLoss: 0,
      resendRate: 0,
      mssBytes: 1448,
      srttNs: 0,
      rttvarNs: 0,
      srttNowNs: undefined,
      uniform: lossUniform,
      counters: newLossCounters(),
    });
    this.loss = { up: path(), down: path() };
    this.update(initial);
  }

  get settings(): LinkSettings {
    return { ...this.current };
  }

  get rttUs(): number {
    return this.current.upUs + this.current.downUs;
  }

  /** What is taken off each direction at the current delays, microseconds. */
  get compensationUs(): { up: number; down: number } {
    const s = this.current;
    return { up: compensationAt(this.compensation, 'up', s.upUs), down: compensationAt(this.compensation, 'down', s.downUs) };
  }

  /** The compensation as given: a constant per direction or a calibrated table. */
  get compensationSetting(): Compensation {
    return this.compensation;
  }

  /**
   * Checked as the compensationUs option is (a ConfigError leaves it unchanged), and a table sorted:
   * setCompensation is public, and an unchecked `{ up }` made the down delay NaN, so no delay.
   */
  setCompensation(c: Compensation): void {
    const checked = parseWith(COMPENSATION, c, keyPath('compensationUs'));
    this.compensation = 'table' in checked ? { table: checked.table.map((p) => ({ ...p })) } : { up: checked.up, down: checked.down };
    this.rebuild();
  }

  /** Validates and applies a change; throws ConfigError and leaves the link unchanged on bad input. */
  update(update: LinkUpdate & { preset?: string }): LinkSettings {
    this.current = applyLinkUpdate(this.current, update);
    this.rebuild();
    return this.settings;
  }

  /** Changes what moves the delays (a wave, a ramp, a series) and rebuilds the samplers. */
  reshape(change: (shape: DelayShape) => void): void {
    change(this.shape);
    this.rebuild();
  }

  /** The mean one-way delays now: the settings, or where a wave, ramp or series has them. */
  delaysNowUs(): { upUs: number; downUs: number } {
    const s = this.current;
    if (this.shape.constant) return { upUs: s.upUs, downUs: s.downUs };
    const now = this.clock.nowNs();
    return { upUs: Math.round(this.shape.meanUs('up', s.upUs, now)), downUs: Math.round(this.shape.meanUs('down', s.downUs, now)) };
  }

  /**
   * The round trip now, microseconds: the settings' (rttUs), or where a wave, ramp or series has it. What
   * a new connection's handshake costs; with rttUs a series over a link the flags left at 0 gave it none.
   */
  rttNowUs(): number {
    const d = this.delaysNowUs();
    return d.upUs + d.downUs;
  }

  /**
   * The RTO a sender on this link would use (rto.ts), from the RTT now; RTTVAR is the jitter's
   * mean deviation, as the loss model takes it.
   */
  rtoNs(): number {
    return rtoNs(this.rttNowUs() * 1000, meanDeviationUs(this.current.jitterDist, this.current.jitterUs) * 1000);
  }

  /** True when jitter is large enough that delays floor at zero and the mean rises. */
  get meanShifted(): boolean {
    const s = this.current;
    return meanShiftRisk(s.jitterDist, s.upUs, s.jitterUs) || meanShiftRisk(s.jitterDist, s.downUs, s.jitterUs);
  }

  sampleNs(direction: Direction): number {
    return this.sampleNsOf[direction]();
  }

  /**
   * sampleNs for one direction, as one function for the link's life: every connection's delay line
   * calls these, so none holds a closure of its own (each is one object more touched per chunk, and
   * with hundreds of connections those are cache misses: docs/precision.md, "Fewer objects per chunk").
   */
  readonly sampleNsOf: Readonly<Record<Direction, () => number>> = {
    up: () => this.samplers.up() * 1000,
    down: () => this.samplers.down() * 1000,
  };

  /** The rate limit now, bits per second (0: none); a property, shared as sampleNsOf is. */
  readonly bandwidthBps = (): number => this.current.bandwidthBps;

  /** The loss a delay line of this direction reads (the same object for the link's life). */
  lossPath(direction: Direction): LossPath {
    return this.loss[direction];
  }

  /**
   * Whether either direction has had a loss rate above 0 since the link was made. A reset of the counts
   * leaves it: /stats keeps its `loss` block, zeroed, so a scraper or dashboard that saw it still finds it.
   */
  get hadLoss(): boolean {
    return this.lossEver;
  }

  resetLossCounters(): void {
    Object.assign(this.loss.up.counters, newLossCounters());
    Object.assign(this.loss.down.counters, newLossCounters());
  }

  /** What the loss model counted per direction (a copy). */
  get lossCounters(): Record<Direction, LossCounters> {
    return { up: { ...this.loss.up.counters }, down: { ...this.loss.down.counters } };
  }

  private rebuild(): void {
    const s = this.current;
    this.lossEver ||= s.lossUp > 0 || s.lossDown > 0;
    const make = (delayUs: number, compUs: number): (() => number) => {
      if (delayUs === 0 && s.jitterUs === 0) return () => 0;
      const sample = jitterSampler(s.jitterDist, delayUs, s.jitterUs, this.uniform);
      if (compUs <= 0) return sample;
      return () => {
        const d = sample() - compUs;
        return d > 0 ? d : 0;
      };
    };
    const comp = this.compensationUs;
    // The sender's view: SRTT is the round trip (the configured one, or where a wave, ramp or series has it
    // when the lossy chunk is sent: a series over a link left at 0 priced every resend at a 0 RTT), RTTVAR
    // the jitter's mean deviation.
    const srttNs = (s.upUs + s.downUs) * 1000;
    const rttvarNs = meanDeviationUs(s.jitterDist, s.jitterUs) * 1000;
    const srttNowNs = this.shape.constant ? undefined : (): number => this.rttNowUs() * 1000;
    for (const [d, rate] of [['up', s.lossUp], ['down', s.lossDown]] as const) {
      Object.assign(this.loss[d], lossChain(rate, s.lossBurst), { mssBytes: s.mssBytes, srttNs, rttvarNs, srttNowNs });
    }
    if (this.shape.constant) {
      this.samplers = { up: make(s.upUs, comp.up), down: make(s.downUs, comp.down) };
      return;
    }
    // Moving delays: the mean is read on the clock per chunk, jitter goes on top, then the
    // compensation at the configured delays (a table's entry does not follow the wave).
    const { shape, clock } = this;
    const moving = (direction: Direction, baseUs: number, compUs: number): (() => number) => {
      const jitter = jitterOffsetSampler(s.jitterDist, s.jitterUs, this.uniform);
      return () => {
        const d = shape.meanUs(direction, baseUs, clock.nowNs()) + jitter() - compUs;
        return d > 0 ? d : 0;
      };
    };
    this.samplers = { up: moving('up', s.upUs, comp.up), down: moving('down', s.downUs, comp.down) };
  }
}
