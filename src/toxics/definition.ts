import type { Uniform } from '../link/rng.js';
import type { ByteSink, ByteStage, ConnectionContext, Direction, FrameStage, Scheduler } from '../stage/types.js';
import type { z } from 'zod';

/** What a byte toxic's stage gets on one connection. `attrs()` reads the current attributes (they change live). */
export interface ByteStageArgs<A> {
  conn: ConnectionContext;
  next: ByteSink;
  direction: Direction;
  scheduler: Scheduler;
  uniform: Uniform;
  attrs: () => A;
  /**
   * Counters of this toxic on this connection that outlive its stage: toxiproxy keeps a
   * StatefulToxic's state (limit_data's bytes sent) in the link, across every restart of its pipe,
   * so a stage made again when an update's roll brings the toxic back counts on from there.
   */
  kept: Record<string, number>;
}

/**
 * A byte toxic's stage on one connection. toxiproxy restarts a toxic's pipe on each link when the
 * toxic is updated (ToxicLink.UpdateToxic), rolling its toxicity again: these two say what that
 * restart does to what the stage holds. Both optional: a stage that reads `attrs()` as it goes
 * needs neither.
 */
export interface ToxicByteStage extends ByteStage {
  /** Updated, still applying: start over with the attributes now in force (a timer re-armed, held data re-timed). */
  restart?(nowNs: number): void;
  /** Updated, and the new toxicity roll missed: stop acting and hand on what is held, now. Default: `drain`. */
  release?(nowNs: number): void;
}

/** One toxiproxy toxic type acting on bytes, one direction of one connection. One file each. */
export interface ByteToxicDefinition<A extends object = object> {
  readonly kind: 'byte';
  readonly type: string;
  /** The attributes' schema: validates (a ConfigError names `attributes.<field>`) and fills in defaults. */
  attributes: z.ZodType<A>;
  /** What the stage runs with, when some values that parse cannot work as sent (after negatives read as 0). */
  applied?(attrs: A): A;
  create(args: ByteStageArgs<A>): ToxicByteStage;
}

/** What a Redis-aware toxic's stage gets on one connection. */
export interface FrameStageArgs<A> {
  conn: ConnectionContext;
  scheduler: Scheduler;
  attrs: () => A;
  /** Rolls the toxic's toxicity for one command and counts the application when it hits. */
  applies(): boolean;
  /** Monotonic ns at which the toxic was added or last updated (failover's window starts there). */
  sinceNs(): number;
}

/** A Redis-aware toxic's stage on one connection. */
export interface ToxicFrameStage extends FrameStage {
  /** The toxic was updated while this connection is open (failover: its window starts again now). */
  restart?(): void;
}

/** A Redis-aware toxic: acts on request/reply pairs; `stream` does not apply. */
export interface FrameToxicDefinition<A extends object = object> {
  readonly kind: 'frame';
  readonly type: string;
  attributes: z.ZodType<A>;
  applied?(attrs: A): A;
  create(args: FrameStageArgs<A>): ToxicFrameStage;
}

/**
 * Any toxic type, as TOXIC_TYPES holds them: its attributes are a JSON object whose fields the type's
 * own schema knows (was `<any>`, which reached a user's code through TOXIC_TYPES unchecked).
 */
export type ToxicDefinition = ByteToxicDefinition<Record<string, unknown>> | FrameToxicDefinition<Record<string, unknown>>;

/** A byte stage that hands everything on untouched (a connection the toxicity roll spared). */
export function passThrough(next: ByteSink): ByteStage {
  return {
    push: (chunk, nowNs) => next.push(chunk, nowNs),
    end: (kind, nowNs) => next.end(kind, nowNs),
    drain: () => undefined,
    destroy: () => undefined,
    pendingBytes: 0,
  };
}
