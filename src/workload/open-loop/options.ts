import { ConfigError } from '../../errors.js';
import { fmtUsSetting } from '../../format.js';
import { keysOf, refuseUnknownKeys } from '../../validation/known-keys.js';
import type { LinkSpec } from '../../link/link-spec.js';
import { resolveBenchLinks } from '../link-list.js';
import { checkBenchCompensation } from '../compensation-option.js';
import { checkRedisAccess, type BenchOptions } from '../options.js';
import { ARRIVALS, type Arrival } from './schedule.js';
import { OPEN_LOOP_MODES, type OpenLoopMode } from './types.js';

export interface OpenLoopOptions {
  /** Redis to use: "host:port" or "unix:/path". @default a private redis-server spawned for the run */
  redis?: string;
  password?: string;
  /** The counter is `<prefix>counter`; only it is written. @default 'redis-rtt:' */
  keyPrefix?: string;
  allowNonempty?: boolean;
  /** @default ['direct', 'local', 'same-az', 'cross-az'] */
  links?: string[];
  /** Connections per run; each list entry is a run of its own. @default [1] */
  clients?: number[];
  /** Commands per second over all connections; each is a run. Absent = C closed loops. */
  rates?: number[];
  /** Length of each run's schedule. @default 10 s */
  durationUs?: number;
  /** @default 'poisson' */
  arrival?: Arrival;
  /** Batching windows to compare; 0 sends each command alone. Needs rates. @default [0] */
  batchWindowsUs?: number[];
  /** Most commands per batch (B). @default 64 */
  maxBatch?: number;
  /** seq (plain commands, one in flight per connection), mux (plain commands, many in flight), auto (ioredis enableAutoPipelining). @default ['seq'] */
  modes?: OpenLoopMode[];
  /** A run whose corrected p99 passes this is saturated. @default none */
  sloUs?: number;
  /** After the duration, the backlog is still sent for this long. @default max(1 s, twice the duration) */
  drainLimitUs?: number;
  /** Seeds the Poisson arrivals and the proxy's jitter. @default 1 */
  seed?: number;
  compensation?: BenchOptions['compensation'];
  /** Stops on time; what finished is reported. */
  signal?: AbortSignal;
}

export interface ResolvedOpenLoopOptions {
  links: LinkSpec[];
  clients: number[];
  rates: number[] | undefined;
  durationUs: number;
  arrival: Arrival;
  batchWindowsUs: number[];
  maxBatch: number;
  modes: OpenLoopMode[];
  sloUs: number | undefined;
  drainLimitUs: number;
  seed: number;
  keyPrefix: string;
}

export const DEFAULT_OPEN_LOOP = {
  links: ['direct', 'local', 'same-az', 'cross-az'],
  clients: [1],
  durationUs: 10_000_000,
  arrival: 'poisson' as Arrival,
  maxBatch: 64,
  seed: 1,
  keyPrefix: 'redis-rtt:',
} as const;

const OPEN_LOOP_OPTION_KEYS = keysOf<OpenLoopOptions>()({
  redis: true, password: true, keyPrefix: true, allowNonempty: true, links: true, clients: true, rates: true,
  durationUs: true, arrival: true, batchWindowsUs: true, maxBatch: true, modes: true, sloUs: true,
  drainLimitUs: true, seed: true, compensation: true, signal: true,
});

/**
 * A run's schedule (and, for the punctual replay, two numbers per command) is held in memory: a
 * rate and duration whose product is huge would take gigabytes before the first command. One under
 * one command would schedule none at all.
 */
export const MAX_SCHEDULED_COMMANDS = 10_000_000;

/** As --duration (units.ts): the drain's Node timer (at most 2^31 - 1 ms) would fire at once past about 24.8 days. */
const MAX_DURATION_US = 3_600e6;

function refuseScheduleSize(ratePerSec: number, durationUs: number): void {
  const expected = ratePerSec * (durationUs / 1e6);
  if (expected < 1) {
    throw new ConfigError('--duration', fmtUsSetting(durationUs), `a run long enough for one command at --rate ${ratePerSec}: at least ${fmtUsSetting(Math.ceil(1e6 / ratePerSec))}`);
  }
  if (expected > MAX_SCHEDULED_COMMANDS) {
    throw new ConfigError(
      '--rate',
      ratePerSec,
      `at most ${MAX_SCHEDULED_COMMANDS} commands a run (rate x --duration ${fmtUsSetting(durationUs)} is ${Math.round(expected)}; the schedule is held in memory): ` +
        `at most ${Math.floor(MAX_SCHEDULED_COMMANDS / (durationUs / 1e6))}/s for this --duration`,
    );
  }
}

/** Checks every option the way the CLI checks flags; each error names its flag (exit status 2). */
export function resolveOpenLoopOptions(o: OpenLoopOptions): ResolvedOpenLoopOptions {
  refuseUnknownKeys(o, OPEN_LOOP_OPTION_KEYS, 'runOpenLoopBench()');
  checkRedisAccess(o);
  const d = DEFAULT_OPEN_LOOP;
  const clients = o.clients ?? [...d.clients];
  if (clients.length === 0) throw new ConfigError('--clients', '', 'a comma-separated list of whole numbers of at least 1');
  for (const c of clients) if (!Number.isInteger(c) || c < 1 || c > 10_000) throw new ConfigError('--clients', c, 'whole numbers from 1 to 10000');
  if (o.rates !== undefined) {
    if (o.rates.length === 0) throw new ConfigError('--rate', '', 'commands per second, like 2000 or 1k,5k,20k');
    for (const r of o.rates) if (!(Number.isFinite(r) && r > 0 && r <= 10_000_000)) throw new ConfigError('--rate', r, 'commands per second above 0, like 2000 or 1k,5k,20k');
  }
  const durationUs = o.durationUs ?? d.durationUs;
  if (!(Number.isFinite(durationUs) && durationUs > 0 && durationUs <= MAX_DURATION_US)) {
    throw new ConfigError('--duration', durationUs, 'a duration above 0 and at most 1 hour, like 500ms or 20s (a bare number is ms)');
  }
  if (o.drainLimitUs !== undefined && !(Number.isFinite(o.drainLimitUs) && o.drainLimitUs >= 0 && o.drainLimitUs <= 2 * MAX_DURATION_US)) {
    throw new ConfigError('drainLimitUs', o.drainLimitUs, 'microseconds from 0 to 7200e6 (two hours, the default drain of an hour-long run)');
  }
  for (const r of o.rates ?? []) refuseScheduleSize(r, durationUs);
  const arrival = o.arrival ?? d.arrival;
  if (!ARRIVALS.includes(arrival)) throw new ConfigError('--arrival', arrival, ARRIVALS.join(' | '));
  const windows = o.batchWindowsUs ?? [0];
  if (o.batchWindowsUs !== undefined && o.rates === undefined) {
    throw new ConfigError('--batch-window', o.batchWindowsUs.join(','), 'to be given with --rate (a window gathers the commands a schedule makes due; closed loops have none)');
  }
  for (const w of windows) if (!(Number.isFinite(w) && w >= 0)) throw new ConfigError('--batch-window', w, 'durations of 0 or more, like 0,100us,1ms');
  const maxBatch = o.maxBatch ?? d.maxBatch;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new ConfigError('--batch', maxBatch, 'one whole number of at least 1 (the most commands per batch)');
  const modes = o.modes ?? ['seq'];
  if (modes.length === 0) throw new ConfigError('--modes', '', OPEN_LOOP_MODES.join(', '));
  for (const m of modes) if (!OPEN_LOOP_MODES.includes(m)) throw new ConfigError('--modes', m, `${OPEN_LOOP_MODES.join(', ')} (open-loop runs)`);
  // A window is the bare connections' (auto batches by itself), and B bounds a window: either alone
  // was dropped without a word.
  if (windows.some((w) => w > 0) && !modes.some((m) => m !== 'auto')) {
    throw new ConfigError('--batch-window', windows.map(fmtUsSetting).join(','), 'a window for --modes seq or mux: auto batches by itself (one tick per write), so --modes auto alone takes none');
  }
  if (o.maxBatch !== undefined && !windows.some((w) => w > 0)) {
    throw new ConfigError('--batch', maxBatch, 'to be given with a --batch-window above 0 (the most commands one window gathers)');
  }
  if (o.sloUs !== undefined && !(Number.isFinite(o.sloUs) && o.sloUs > 0)) throw new ConfigError('--slo', o.sloUs, 'a duration above 0, like 2ms');
  const links = resolveBenchLinks(o.links ?? d.links);
  checkBenchCompensation(o.compensation, links);
  const keyPrefix = o.keyPrefix ?? d.keyPrefix;
  if (keyPrefix === '') throw new ConfigError('--key-prefix', keyPrefix, 'a non-empty prefix, so the run only touches its own keys');
  const seed = o.seed ?? d.seed;
  if (!Number.isInteger(seed) || seed < 0) throw new ConfigError('--seed', seed, 'a whole number of 0 or more');
  return {
    links,
    clients: [...new Set(clients)],
    rates: o.rates ? [...new Set(o.rates)].sort((a, b) => a - b) : undefined,
    durationUs,
    arrival,
    batchWindowsUs: [...new Set(windows)],
    maxBatch,
    modes: [...new Set(modes)],
    sloUs: o.sloUs,
    drainLimitUs: o.drainLimitUs ?? Math.max(1_000_000, 2 * durationUs),
    seed,
    keyPrefix,
  };
}
