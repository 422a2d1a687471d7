import type { CompensationPoint } from '../link/compensation.js';
import { checkBenchCompensation } from './compensation-option.js';
import { ConfigError } from '../errors.js';
import { keysOf, refuseUnknownKeys } from '../validation/known-keys.js';
import type { LinkSpec } from '../link/link-spec.js';
import { resolveBenchLinks } from './link-list.js';
import type { PlanRequest } from './plan.js';
import { SHAPES } from './shapes/index.js';
import { MODES, WORKLOADS, type Mode, type Workload } from '../results/types.js';

export interface BenchOptions {
  /** Redis to use: "host:port" or "unix:/path". @default a private redis-server spawned for the run */
  redis?: string;
  /** Password for that Redis (AUTH on connect). @default none */
  password?: string;
  /** Every key the run writes starts with this; only these keys are ever deleted. @default 'redis-rtt:' */
  keyPrefix?: string;
  /** Run against a database that already holds keys (never flushed; only prefixed keys touched). @default false */
  allowNonempty?: boolean;
  /** direct, local, a preset (same-az, cross-az, ...) or "rtt=2ms/jitter=0.2ms". @default ['direct', 'local', 'same-az', 'cross-az'] */
  links?: string[];
  /** @default ['seq', 'pipeline'] */
  modes?: Mode[];
  /** Operations per wait (commands in flight for auto). @default [1, 8, 64, 256] */
  batches?: number[];
  /** @default 'incr' */
  workload?: Workload;
  /** Several workloads in one report (the demo). Overrides `workload`. */
  workloads?: Workload[];
  /** Operations per sample. @default 1000 */
  n?: number;
  /** Value size in bytes for set/get. @default 16 */
  sizeBytes?: number;
  /** Timed samples per configuration. @default 5 */
  repeat?: number;
  /** Untimed (but verified) samples per configuration first. @default 1 */
  warmup?: number;
  /**
   * Before those, each distinct shape runs straight to Redis for up to this long (or 20k
   * commands), so ioredis's code is optimised before anything is timed (driver-warmup.ts); 0 skips
   * it. @default 500
   */
  driverWarmupMs?: number;
  /** Stop starting new samples after this long. @default no bound */
  maxSeconds?: number;
  /** Seeds values and the proxy's jitter. @default 1 */
  seed?: number;
  /** A command without a reply after this long fails the configuration. @default 30000 (plus 20 RTTs) */
  replyTimeoutMs?: number;
  /** RESP version the clients speak. @default 3 */
  protocol?: 2 | 3;
  /**
   * The proxy's hop compensation (microseconds taken off each one-way delay to pay for its own
   * hop): 'off' keeps every wait on a delayed link at least its RTT, and makes `local` the exact
   * baseline the model adds RTTs to; 'auto' measures the hop at start (fragile on a loaded
   * machine); a number sets it; `{ table }` is a `calibrate` result's table, which also pays for
   * the wake-ups that grow with the delay. @default 'off'
   */
  compensation?: 'off' | 'auto' | number | { table: CompensationPoint[] };
  /** Ctrl-C: stop cleanly and return what finished. */
  signal?: AbortSignal;
  /** Keeps only some cells (the demo's grid). */
  include?: PlanRequest['include'];
  /** Per-cell changes (the demo lowers n for slow cells). */
  adjust?: PlanRequest['adjust'];
}

export const DEFAULT_BENCH_OPTIONS = {
  keyPrefix: 'redis-rtt:',
  allowNonempty: false,
  links: ['direct', 'local', 'same-az', 'cross-az'],
  modes: ['seq', 'pipeline'] as Mode[],
  batches: [1, 8, 64, 256],
  workload: 'incr' as Workload,
  n: 1000,
  sizeBytes: 16,
  repeat: 5,
  warmup: 1,
  driverWarmupMs: 500,
  seed: 1,
  replyTimeoutMs: 30_000,
} as const;

export interface ResolvedBenchOptions {
  links: LinkSpec[];
  modes: Mode[];
  batches: number[];
  workloads: Workload[];
  n: number;
  sizeBytes: number;
  repeat: number;
  warmup: number;
  driverWarmupMs: number;
  seed: number;
  keyPrefix: string;
  replyTimeoutMs: number;
}

const BENCH_OPTION_KEYS = keysOf<BenchOptions>()({
  redis: true, password: true, keyPrefix: true, allowNonempty: true, links: true, modes: true, batches: true,
  workload: true, workloads: true, n: true, sizeBytes: true, repeat: true, warmup: true, driverWarmupMs: true,
  maxSeconds: true, seed: true, replyTimeoutMs: true, protocol: true, compensation: true, signal: true,
  include: true, adjust: true,
});

/**
 * `password` and `allowNonempty`, which no flag parser reads for a library caller: a number as the
 * password was sent as its digits, and `allowNonempty: 'no'` let a run write into a database that held keys.
 */
export function checkRedisAccess(o: { password?: unknown; allowNonempty?: unknown }): void {
  if (o.password !== undefined && typeof o.password !== 'string') throw new ConfigError('password', o.password, 'a string (the AUTH password)');
  if (o.allowNonempty !== undefined && typeof o.allowNonempty !== 'boolean') throw new ConfigError('allowNonempty', o.allowNonempty, 'true or false');
}

/** Checks library callers' options the way the CLI checks flags; errors name the flag. */
export function resolveBenchOptions(o: BenchOptions): ResolvedBenchOptions {
  refuseUnknownKeys(o, BENCH_OPTION_KEYS, 'runBench()');
  checkRedisAccess(o);
  const d = DEFAULT_BENCH_OPTIONS;
  const int = (v: number | undefined, def: number, flag: string, min: number): number => {
    const x = v ?? def;
    if (!Number.isInteger(x) || x < min) throw new ConfigError(flag, v, `a whole number of at least ${min}`);
    return x;
  };
  // Checked here, not only by the type: a JavaScript caller's `protocol: '3'` or `4` ran RESP2 without a word
  // (no HELLO), and an `include` that is not a function threw a TypeError mid-plan.
  if (o.protocol !== undefined && o.protocol !== 2 && o.protocol !== 3) throw new ConfigError('protocol', o.protocol, '2 or 3 (RESP3, with HELLO, is the default)');
  for (const hook of ['include', 'adjust'] as const) {
    if (o[hook] !== undefined && typeof o[hook] !== 'function') throw new ConfigError(hook, o[hook], 'a function of the configuration');
  }
  const modes = o.modes ?? d.modes;
  for (const m of modes) if (!MODES.includes(m)) throw new ConfigError('--modes', m, MODES.join(', '));
  if (modes.length === 0) throw new ConfigError('--modes', '', MODES.join(', '));
  const workloads = o.workloads ?? [o.workload ?? d.workload];
  for (const w of workloads) if (!WORKLOADS.includes(w)) throw new ConfigError('--workload', w, WORKLOADS.join(' | '));
  // A plan of only skipped shapes would spawn Redis and the proxies to report "(no results)".
  if (!modes.some((m) => workloads.some((w) => SHAPES[m].notApplicable(w) === null))) {
    const fits = MODES.filter((m) => workloads.some((w) => SHAPES[m].notApplicable(w) === null));
    throw new ConfigError('--modes', modes.join(','), `at least one shape that applies to the ${workloads.join(', ')} workload (${fits.join(', ')})`);
  }
  const batches = o.batches ?? [...d.batches];
  if (batches.length === 0) throw new ConfigError('--batch', '', 'a comma-separated list of whole numbers, like 1,8,64,256');
  for (const b of batches) int(b, 1, '--batch', 1);
  const links = resolveBenchLinks(o.links ?? d.links);
  const keyPrefix = o.keyPrefix ?? d.keyPrefix;
  if (keyPrefix === '') throw new ConfigError('--key-prefix', keyPrefix, 'a non-empty prefix, so the run only touches its own keys');
  checkBenchCompensation(o.compensation, links);
  if (o.maxSeconds !== undefined && !(o.maxSeconds > 0)) throw new ConfigError('--max-seconds', o.maxSeconds, 'a positive number of seconds');
  const driverWarmupMs = o.driverWarmupMs ?? d.driverWarmupMs;
  if (!(Number.isFinite(driverWarmupMs) && driverWarmupMs >= 0)) throw new ConfigError('--driver-warmup', o.driverWarmupMs, 'a duration of zero or more');
  return {
    links,
    modes: [...new Set(modes)],
    batches: [...new Set(batches)],
    workloads,
    n: int(o.n, d.n, '-n', 1),
    sizeBytes: int(o.sizeBytes, d.sizeBytes, '--size', 1),
    repeat: int(o.repeat, d.repeat, '--repeat', 1),
    warmup: int(o.warmup, d.warmup, '--warmup', 0),
    driverWarmupMs,
    seed: int(o.seed, d.seed, '--seed', 0),
    keyPrefix,
    replyTimeoutMs: int(o.replyTimeoutMs, d.replyTimeoutMs, 'replyTimeoutMs', 1),
  };
}
