import type { LinkSpec } from '../link/link-spec.js';
import { SHAPES } from './shapes/index.js';
import type { Mode, Workload } from '../results/types.js';

/** One cell of the comparison: a link, a shape and a batch size, with its own n and repetitions. */
export interface Configuration {
  /** Position in the plan; rotation shifts the starting position by one each repetition. */
  index: number;
  link: LinkSpec;
  mode: Mode;
  workload: Workload;
  /** Operations per wait (1 for seq; commands in flight for auto). */
  batch: number;
  n: number;
  repeat: number;
  warmup: number;
  /** Why this cell differs from what was asked (lowered n, fewer repetitions). */
  note?: string;
}

export interface PlanRequest {
  links: LinkSpec[];
  modes: Mode[];
  batches: number[];
  workloads: Workload[];
  n: number;
  repeat: number;
  warmup: number;
  /** Keeps only the cells this returns true for (the demo's hand-picked grid). @default all */
  include?: (c: Configuration) => boolean;
  /** Per-cell changes (the demo lowers n at cross-region); applied after the defaults. */
  adjust?: (c: Configuration) => Partial<Pick<Configuration, 'n' | 'repeat' | 'warmup' | 'note'>> | undefined;
}

/** Expands links x workloads x modes x batches into configurations; inapplicable ones become notes. */
export function planConfigurations(req: PlanRequest): { configs: Configuration[]; notes: string[] } {
  const configs: Configuration[] = [];
  const notes: string[] = [];
  for (const workload of req.workloads) {
    for (const mode of req.modes) {
      const why = SHAPES[mode].notApplicable(workload);
      if (why) {
        notes.push(`skipped ${mode} with the ${workload} workload: ${why}`);
        continue;
      }
      // seq has no batch: one command per wait whatever --batch says.
      const batches = mode === 'seq' ? [1] : [...new Set(req.batches)];
      for (const link of req.links) {
        for (const batch of batches) {
          const c: Configuration = { index: configs.length, link, mode, workload, batch, n: req.n, repeat: req.repeat, warmup: req.warmup };
          if (req.include && !req.include(c)) continue;
          Object.assign(c, req.adjust?.(c) ?? {});
          configs.push(c);
        }
      }
    }
  }
  return { configs, notes };
}

/** ceil(n / batch): the waits the round-trip arithmetic predicts. */
export function waitsOf(n: number, batch: number): number {
  return Math.ceil(n / batch);
}

/**
 * Rough local cost guesses (microseconds) for the duration estimate only, from runs on a 2-core
 * machine: per operation by shape, plus what one proxy hop adds per wait and fixed per-sample work
 * (reset, INFO, verification).
 */
const PER_OP_US: Record<Mode, number> = { seq: 60, pipeline: 5, multi: 6, mget: 2, mset: 2.5, lua: 4, auto: 8 };
const PROXY_HOP_US = 100;
const PER_SAMPLE_MS = 4;
/** Spawning redis, and per proxied link: measuring its hop and a few handshake round trips. */
const SETUP_MS = 300;
const SETUP_PER_LINK_MS = 100;
const HANDSHAKE_RTTS = 4;

/** Expected wall time of one sample straight to Redis (no link, no proxy), milliseconds. */
export function estimateDirectSampleMs(c: Pick<Configuration, 'mode' | 'n'>): number {
  return (c.n * PER_OP_US[c.mode]) / 1000 + PER_SAMPLE_MS;
}

/** Expected wall time of one sample, milliseconds: waits x (RTT + hop) + local work. */
export function estimateSampleMs(c: Configuration): number {
  // For auto, ioredis decides the waits; ceil(n / in-flight) is the best case.
  const waits = waitsOf(c.n, c.batch);
  const hopUs = c.link.direct ? 0 : PROXY_HOP_US;
  return (waits * (c.link.rttUs + hopUs) + c.n * PER_OP_US[c.mode]) / 1000 + PER_SAMPLE_MS;
}

/** Expected wall time of the whole plan, milliseconds (set-up and warm-ups included). */
export function estimatePlanMs(configs: readonly Configuration[]): number {
  const links = new Map(configs.map((c) => [c.link.name, c.link]));
  let setupMs = SETUP_MS;
  for (const l of links.values()) if (!l.direct) setupMs += SETUP_PER_LINK_MS + (HANDSHAKE_RTTS * l.rttUs) / 1000;
  return configs.reduce((sum, c) => sum + (c.warmup + c.repeat) * estimateSampleMs(c), setupMs);
}
