import type { Redis } from 'ioredis';
import { parseLinkSpec } from '../link/link-spec.js';
import type { Endpoint } from '../endpoint.js';
import type { DriverClientOptions } from './clients.js';
import type { WorkloadData } from './keys.js';
import { openLink } from './links.js';
import { estimateDirectSampleMs, type Configuration } from './plan.js';
import { runSample } from './sample.js';
import type { Workload } from '../results/types.js';

/** Commands per shape after which V8 had settled ioredis's code in every run measured (docs/measurements.md). */
export const DRIVER_WARMUP_OPS = 20_000;

export interface DriverWarmupInput {
  configs: Configuration[];
  /** Redis itself: the warm-up never goes through a proxy (it would cost a delayed link's RTTs). */
  endpoint: Endpoint;
  clientOptions: DriverClientOptions;
  admin: Redis;
  data: Map<Workload, WorkloadData>;
  luaSha: Map<Workload, string>;
  /** Budget per shape; the shape stops at DRIVER_WARMUP_OPS commands or this, whichever is first. */
  maxMsPerShape: number;
  signal?: AbortSignal;
}

export interface DriverWarmupResult {
  shapes: number;
  ops: number;
  ms: number;
  /** Configuration index -> why its shape failed during the warm-up (a wrong reply is a failure here too). */
  failed: Map<number, string>;
}

/** The warm-up's expected wall time, milliseconds, for the run's estimate. */
export function estimateDriverWarmupMs(configs: readonly Configuration[], maxMsPerShape: number): number {
  const shapes = distinctShapes(configs);
  let ms = 0;
  for (const c of shapes.values()) ms += Math.min(maxMsPerShape, Math.ceil(DRIVER_WARMUP_OPS / c.n) * estimateDirectSampleMs(c));
  return ms;
}

/** One configuration per (mode, workload, batch): the one with the largest n. */
function distinctShapes(configs: readonly Configuration[]): Map<string, Configuration> {
  const shapes = new Map<string, Configuration>();
  for (const c of configs) {
    const seen = shapes.get(shapeOf(c));
    if (!seen || c.n > seen.n) shapes.set(shapeOf(c), c);
  }
  return shapes;
}

function shapeOf(c: Configuration): string {
  return `${c.mode}|${c.workload}|${c.batch}`;
}

/**
 * Until V8 has settled it, the client's own code decides a short cell's time, not the link: ioredis
 * flips between optimised and deoptimised code for its first commands in a process, while raw RESP
 * on the same socket stays steady (docs/measurements.md, `lab/tools/batch-noise.mjs`).
 * So before any sample, each distinct shape of the plan (mode, workload, batch) runs straight to
 * Redis on fresh clients, verified like a sample and never kept.
 */
export async function warmDriver(input: DriverWarmupInput): Promise<DriverWarmupResult> {
  const t0 = Date.now();
  const shapes = distinctShapes(input.configs);
  const failed = new Map<number, string>();
  // A `direct` link: the same clients, options and renewal after a failure as the run's own.
  const needAuto = [...shapes.values()].some((c) => c.mode === 'auto');
  const link = await openLink(parseLinkSpec('direct'), input.endpoint, { ...input.clientOptions, needAuto, compensation: 'off' });
  let ops = 0;
  try {
    for (const c of shapes.values()) {
      const which = c.mode === 'auto' ? 'auto' : 'plain';
      const started = Date.now();
      let done = 0;
      try {
        while (done < DRIVER_WARMUP_OPS && Date.now() - started < input.maxMsPerShape && !input.signal?.aborted) {
          await runSample(c, { admin: input.admin, client: link[which]!, data: input.data.get(c.workload)!, luaSha: input.luaSha.get(c.workload) ?? '' });
          done += c.n;
        }
      } catch (err) {
        const why = `client warm-up straight to Redis: ${(err as Error).message}`;
        for (const other of input.configs) if (shapeOf(other) === shapeOf(c)) failed.set(other.index, why);
        // A reply may still be owed to the failed shape's client: the next shape gets a fresh one.
        await link.renew(which).catch(() => {});
      }
      ops += done;
    }
  } finally {
    await link.close();
  }
  return { shapes: shapes.size, ops, ms: Date.now() - t0, failed };
}
