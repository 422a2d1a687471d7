import type { Redis } from 'ioredis';
import type { WorkloadData } from '../keys.js';
import type { Mode, Workload } from '../../results/types.js';

/** Everything one timed sample of a shape needs; built before the clock starts. */
export interface ShapeContext {
  redis: Redis;
  workload: Workload;
  /** Operations in this sample. */
  n: number;
  /** Operations per wait (per pipeline, MULTI, MGET/MSET, EVALSHA), or commands in flight for `auto`. */
  batch: number;
  data: WorkloadData;
  /** SHA1 of this workload's Lua script, loaded with SCRIPT LOAD before timing (the `lua` shape). */
  luaSha: string;
  /** Call with the process.hrtime.bigint() taken when a wait began, when its last reply is in. */
  waitDone(startNs: bigint): void;
  /** Checked between waits, so Ctrl-C does not have to sit out an 85 ms x 1000 loop. */
  signal?: AbortSignal;
}

/**
 * One entry per operation, in operation order: the reply value, or an Error for an error reply
 * or a failure. A shape stops after the wait in which the first error appeared, so the array may
 * be shorter than n; the verifier reports the first missing or wrong entry by index.
 */
export type Replies = unknown[];

export interface Shape {
  mode: Mode;
  /** Why this shape cannot run this workload, or null when it can. */
  notApplicable(workload: Workload): string | null;
  /** Runs the n operations; everything inside is timed. */
  run(ctx: ShapeContext): Promise<Replies>;
}

/** Thrown inside a shape when the abort signal fires between waits. */
export class SampleAborted extends Error {
  override readonly name = 'SampleAborted';
  constructor() {
    super('aborted');
  }
}

export function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SampleAborted();
}

/** The error to store when a whole wait failed (connection lost, EXECABORT, timeout...). */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Copies a pipeline/multi exec() result ([err, value] per command) into replies at `offset`.
 * Returns false when any entry was an error, so the shape stops after this wait.
 */
export function takeExecResults(replies: Replies, offset: number, results: [Error | null, unknown][] | null, count: number): boolean {
  if (results === null) {
    replies[offset] = new Error('EXEC returned nil (transaction aborted)');
    return false;
  }
  let ok = true;
  for (let j = 0; j < count; j++) {
    const entry = results[j];
    if (entry === undefined) {
      ok = false;
      break;
    }
    const [err, value] = entry;
    replies[offset + j] = err ?? value;
    if (err) ok = false;
  }
  return ok;
}
