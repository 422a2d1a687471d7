import { jitterSampler, meanShiftRisk } from './jitter.js';
import { randomSeed, seededUniform, type Uniform } from './rng.js';
import { applyLinkUpdate, defaultLinkSettings } from './settings.js';
import type { Direction, LinkSettings, LinkUpdate } from './types.js';

export interface LinkStateOptions {
  seed?: number;
  /**
   * Microseconds subtracted from each one-way delay to pay for the proxy's own hop (the extra
   * loopback transit and event-loop wake-up a direct connection does not have), so a client sees
   * direct + configured. Floored at zero delay. @default 0
   */
  compensationUs?: { up: number; down: number };
}

/**
 * The live settings of one proxy's link, shared by all its connections, and the samplers that
 * turn them into per-chunk delays. Changing the settings affects chunks that arrive afterwards.
 */
export class LinkState {
  private current: LinkSettings = defaultLinkSettings();
  private readonly uniform: Uniform;
  private samplers: Record<Direction, () => number> = { up: () => 0, down: () => 0 };
  private compensation: { up: number; down: number };
  readonly seed: number;

  constructor(initial: LinkUpdate & { preset?: string } = {}, options: LinkStateOptions = {}) {
    this.seed = options.seed ?? randomSeed();
    this.uniform = seededUniform(this.seed);
    this.compensation = options.compensationUs ?? { up: 0, down: 0 };
    this.update(initial);
  }

  get settings(): LinkSettings {
    return { ...this.current };
  }

  get rttUs(): number {
    return this.current.upUs + this.current.downUs;
  }

  get compensationUs(): { up: number; down: number } {
    return { ...this.compensation };
  }

  setCompensation(us: { up: number; down: number }): void {
    this.compensation = { ...us };
    this.rebuild();
  }

  /** Validates and applies a change; throws ConfigError and leaves the link unchanged on bad input. */
  update(update: LinkUpdate & { preset?: string }): LinkSettings {
    this.current = applyLinkUpdate(this.current, update);
    this.rebuild();
    return this.settings;
  }

  /** True when jitter is large enough that delays floor at zero and the mean rises. */
  get meanShifted(): boolean {
    const s = this.current;
    return meanShiftRisk(s.jitterDist, s.upUs, s.jitterUs) || meanShiftRisk(s.jitterDist, s.downUs, s.jitterUs);
  }

  sampleNs(direction: Direction): number {
    return this.samplers[direction]() * 1000;
  }

  bandwidthBps(): number {
    return this.current.bandwidthBps;
  }

  private rebuild(): void {
    const s = this.current;
    const make = (delayUs: number, compUs: number): (() => number) => {
      if (delayUs === 0 && s.jitterUs === 0) return () => 0;
      const sample = jitterSampler(s.jitterDist, delayUs, s.jitterUs, this.uniform);
      if (compUs <= 0) return sample;
      return () => {
        const d = sample() - compUs;
        return d > 0 ? d : 0;
      };
    };
    this.samplers = { up: make(s.upUs, this.compensation.up), down: make(s.downUs, this.compensation.down) };
  }
}
