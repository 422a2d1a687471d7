/**
 * Toxics as toxiproxy names them, as stages of the chain (src/stage/types.ts). A toxic is a spec
 * (the JSON toxiproxy's API takes and returns) plus the stage factory built from it. Byte toxics act
 * on one direction per connection; Redis-aware toxics act on request/reply pairs.
 */
import type { Uniform } from '../link/rng.js';
import type { Direction, Scheduler, StageFactory } from '../stage/types.js';

/** toxiproxy's name for a direction: upstream = client to Redis. */
export type Stream = 'upstream' | 'downstream';

export const STREAM_DIRECTION: Record<Stream, Direction> = { upstream: 'up', downstream: 'down' };

/** A toxic as toxiproxy's API shows it (attributes normalised: every default filled in). */
export interface ToxicSpec {
  name: string;
  type: string;
  stream: Stream;
  /** Probability in [0, 1]: per connection for byte toxics (as toxiproxy), per command for Redis-aware ones. */
  toxicity: number;
  attributes: Record<string, unknown>;
  /** What the stage runs with, when some value cannot work as sent (spec.ts `withApplied`); absent when the same. */
  applied?: { toxicity: number; attributes: Record<string, unknown> };
}

/** What a toxic needs from the proxy it runs on. */
export interface ToxicEnv {
  scheduler: Scheduler;
  /** Uniform [0, 1) source for toxicity rolls and jitter. */
  uniform: Uniform;
}

/** A live toxic: its spec (attributes may change in place) and the stage the chain runs. */
export interface Toxic {
  readonly spec: ToxicSpec;
  readonly stage: StageFactory;
  /** Times it acted: connections it applied to (byte toxics) or commands it matched (Redis-aware). */
  readonly applications: number;
  /** Zeroes `applications` (a stats reset: POST /reset, resetStats()). */
  resetApplications(): void;
  /**
   * Replaces attributes and toxicity (already validated). Live connections see them from now on, and
   * restart the toxic as toxiproxy does: a byte toxic's toxicity is rolled again on each.
   */
  update(attributes: Record<string, unknown>, toxicity: number): void;
}
