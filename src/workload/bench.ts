import { selfReportNote } from '../stats/self-report.js';
import { interruptedMark } from '../results/interrupted.js';
import type { Redis } from 'ioredis';
import { ConfigError } from '../errors.js';
import { fmtMsProse } from '../format.js';
import { jitterFloorWarning } from '../link/jitter.js';
import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import type { PrivateRedis } from '../redis/index.js';
import { connectClient, type DriverClient } from './clients.js';
import { connectionSetup, driverSetupSteps } from './connection-setup.js';
import { deriveResults } from './derive.js';
import { describeEnvironment, describeMethod } from '../results/environment.js';
import { allKeys, buildWorkloadData, type WorkloadData } from './keys.js';
import { forkProxiesAhead, openLink, type LinkEndpoint } from './links.js';
import type { ForkedProxy } from './proxy-process/spawn.js';
import { benchRedis, checkUserRedis } from './redis-target.js';
import { resolveBenchOptions, type BenchOptions } from './options.js';
import { estimatePlanMs, estimateSampleMs, planConfigurations, type Configuration } from './plan.js';
import { runLabel, runConfigurations, type BenchProgress } from './runner.js';
import { estimateDriverWarmupMs, warmDriver, type DriverWarmupResult } from './driver-warmup.js';
import { deleteKeys } from './sample.js';
import { redisVersion } from './server-stats.js';
import { LUA_SCRIPTS } from './shapes/index.js';
import type { BenchReport, BenchResult, Workload } from '../results/types.js';

export type { BenchOptions } from './options.js';
export type { BenchProgress } from './runner.js';

/**
 * Runs the same work in several shapes across links and returns the report. With no `redis`
 * it spawns a private redis-server (no persistence) and removes it afterwards; with one, it
 * refuses a non-empty database unless allowed and only ever deletes its own prefixed keys.
 * An abort signal stops it between waits; what finished is returned.
 */
export async function runBench(options: BenchOptions, progress?: (ev: BenchProgress) => void): Promise<BenchReport> {
  const startedAt = new Date();
  const opts = resolveBenchOptions(options);
  const { configs, notes } = planConfigurations({
    ...opts,
    ...(options.include ? { include: options.include } : {}),
    ...(options.adjust ? { adjust: options.adjust } : {}),
  });
  const samples = configs.reduce((s, c) => s + c.warmup + c.repeat, 0);
  const estimateMs = estimatePlanMs(configs) + estimateDriverWarmupMs(configs, opts.driverWarmupMs);
  // After the checks that can refuse the run (a non-empty --redis), so nothing is promised first.
  if (options.maxSeconds !== undefined) refuseNothingFits(configs, options.maxSeconds);
  const announce = (): void => {
    const boundMs = options.maxSeconds !== undefined ? options.maxSeconds * 1000 : Infinity;
    progress?.({ type: 'estimate', estimateMs: Math.min(estimateMs, boundMs), configurations: configs.length, samples });
    if (options.maxSeconds !== undefined) for (const text of tooLongForBound(configs, options.maxSeconds)) progress?.({ type: 'note', text });
    for (const text of notes) progress?.({ type: 'note', text });
    for (const l of new Map(configs.map((c) => [c.link.name, c.link])).values()) {
      const warning = l.direct ? undefined : jitterFloorWarning(applyLinkUpdate(defaultLinkSettings(), l.update));
      if (warning) progress?.({ type: 'note', text: `${l.name}: ${warning}` });
    }
  };

  let privateRedis: PrivateRedis | undefined;
  let admin: DriverClient | undefined;
  const links = new Map<string, LinkEndpoint>();
  const data = new Map<Workload, WorkloadData>();
  let forks = new Map<string, ForkedProxy>();
  try {
    forks = forkProxiesAhead(configs.map((c) => c.link));
    const target = await benchRedis(options.redis);
    const endpoint = target.endpoint;
    privateRedis = target.privateRedis;
    const clientOpts = {
      replyTimeoutMs: opts.replyTimeoutMs,
      ...(options.protocol ? { protocol: options.protocol } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
    };
    admin = await connectClient(endpoint, { ...clientOpts, protocol: 2 });
    if (!privateRedis) await checkUserRedis(admin.redis, options.redis ?? '', opts.replyTimeoutMs);
    if (!privateRedis) await refuseNonempty(admin.redis, options.redis ?? '', opts.keyPrefix, options.allowNonempty ?? false);
    announce();
    const version = await redisVersion(admin.redis);

    for (const w of opts.workloads) {
      const maxN = Math.max(0, ...configs.filter((c) => c.workload === w).map((c) => c.n));
      data.set(w, buildWorkloadData(w, maxN, opts.sizeBytes, opts.keyPrefix, opts.seed));
    }
    await preload(admin.redis, data.get('get'));
    const luaSha = new Map<Workload, string>();
    if (configs.some((c) => c.mode === 'lua')) {
      for (const w of opts.workloads) luaSha.set(w, (await admin.redis.script('LOAD', LUA_SCRIPTS[w])) as string);
    }
    const driverWarmupMs = opts.driverWarmupMs;
    let driverWarmup: DriverWarmupResult | undefined;
    if (driverWarmupMs > 0 && !options.signal?.aborted) {
      driverWarmup = await warmDriver({
        configs,
        endpoint,
        clientOptions: clientOpts,
        admin: admin.redis,
        data,
        luaSha,
        maxMsPerShape: driverWarmupMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      progress?.({ type: 'note', text: `client warm-up: ${driverWarmup.shapes} shape${driverWarmup.shapes === 1 ? '' : 's'} straight to Redis, ${driverWarmup.ops} commands in ${driverWarmup.ms} ms` });
    }
    const needAuto = configs.some((c) => c.mode === 'auto');
    for (const c of configs) {
      if (links.has(c.link.name) || options.signal?.aborted) continue;
      const compensation = options.compensation ?? 'off';
      const forked = forks.get(c.link.name);
      const link = await openLink(c.link, endpoint, { ...clientOpts, needAuto, seed: opts.seed, compensation, ...(forked ? { forked } : {}) });
      links.set(c.link.name, link);
      if (link.proxy && compensation !== 'off') {
        notes.push(`${c.link.name}: the proxy takes ${link.proxy.compensationUs.up} us off each one-way delay (${compensationSource(compensation)})`);
      }
    }

    const run = await runConfigurations({
      configs,
      links,
      admin: admin.redis,
      data,
      luaSha,
      ...(driverWarmup ? { failedBefore: driverWarmup.failed } : {}),
      startedAtMs: startedAt.getTime(),
      ...(options.maxSeconds !== undefined ? { maxSeconds: options.maxSeconds } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(progress ? { progress } : {}),
    });
    if (options.signal?.aborted && !run.stopped) run.notes.push('stopped on request before the first sample');
    // A link whose samples were all skipped (--max-seconds) saw only the preload: no notes of its own.
    const timed = new Set(run.outcomes.filter((o) => o.samples.length > 0).map((o) => o.config.link.name));
    for (const [name, link] of links) {
      // Each proxy runs in a process of its own: its lateness is its own, plus what the OS scheduler gives it.
      const self = (await link.proxy?.read().catch(() => undefined))?.stats.self;
      if (!timed.has(name) || !self || self.lateUs.count === 0) continue;
      const late = self.lateUs;
      notes.push(`${name}: proxy's own p99 lateness ${late.p99} us (p50 ${late.p50}, max ${late.max}, ${late.count} deliveries)`);
      const added = selfReportNote(name, self, link.spec.rttUs);
      if (added) notes.push(added);
    }
    const derived = deriveResults(run.outcomes);
    for (const [name, link] of links) {
      const note = timed.has(name) ? serializationNote(name, link.spec.update.bandwidthBps ?? 0, derived.results) : undefined;
      if (note) notes.push(note);
    }
    return {
      kind: 'bench',
      environment: describeEnvironment(version, startedAt),
      method: {
        ...describeMethod(opts.repeat, opts.warmup),
        ...(driverWarmup ? { driverWarmup: { shapes: driverWarmup.shapes, ops: driverWarmup.ops, ms: driverWarmup.ms } } : {}),
      },
      results: derived.results,
      notes: [...notes, ...run.notes, ...derived.notes],
      // Every client connects in openLink (and renew, between samples): none inside a timed sample.
      connectionSetup: connectionSetup([...links.entries()].filter(([name]) => timed.has(name)).map(([, l]) => l.spec), driverSetupSteps(clientOpts)),
      ...interruptedMark(options.signal),
    };
  } finally {
    await Promise.allSettled([...links.values()].map((l) => l.close()));
    await Promise.allSettled([...forks.values()].map((f) => f.close()));
    if (admin && !privateRedis) {
      // Only our own keys, by exact name: never FLUSH a database we did not create.
      await Promise.allSettled([...data.values()].map((d) => removeOwnKeys(admin!.redis, d)));
    }
    await admin?.close();
    await privateRedis?.stop();
  }
}

/** Said before the run starts: the cells whose one sample alone is longer than the bound (never started). */
export function tooLongForBound(configs: readonly Configuration[], maxSeconds: number): string[] {
  return configs
    .filter((c) => estimateSampleMs(c) > maxSeconds * 1000)
    .map((c) => `skipped: ${runLabel(c)}: one sample takes about ${aboutTime(estimateSampleMs(c))}, more than --max-seconds ${maxSeconds}`);
}

/** An estimate in tenths of a second, in ms below one (a bound of 0.001 s was refused with a sample of "about 0.0 s"). */
/**
 * model ms and the link share are round trips x RTT: a link with a bandwidth also spends each byte's
 * serialisation, so a 100 KB GET at 100 mbit read as +549% from its model and "link 10%", unexplained.
 */
export function serializationNote(link: string, bandwidthBps: number, results: readonly BenchResult[]): string | undefined {
  if (bandwidthBps <= 0) return undefined;
  const bytes = Math.max(0, ...results.filter((r) => r.link === link).map((r) => (r.bytesUp ?? 0) + (r.bytesDown ?? 0)));
  if (bytes === 0) return undefined;
  return (
    `${link}: model ms and the link share count round trips x RTT only; its bandwidth adds each byte's serialisation, ` +
    `up to ${fmtMsProse((bytes * 8 * 1000) / bandwidthBps)} a sample here (${bytes} bytes up and down at ${bandwidthBps / 1e6} mbit/s)`
  );
}

function aboutTime(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : fmtMsProse(ms);
}

/** Before anything starts: not even the cheapest sample fits the bound, so the run would time nothing. */
export function refuseNothingFits(configs: readonly Configuration[], maxSeconds: number): void {
  const cheapest = configs.reduce<Configuration | undefined>((a, c) => (a && estimateSampleMs(a) <= estimateSampleMs(c) ? a : c), undefined);
  if (!cheapest || estimateSampleMs(cheapest) <= maxSeconds * 1000) return;
  const s = aboutTime(estimateSampleMs(cheapest));
  throw new ConfigError('--max-seconds', maxSeconds, `a bound one sample fits in: no sample does; the cheapest, ${runLabel(cheapest)}, takes about ${s}`);
}

export async function refuseNonempty(admin: Redis, address: string, prefix: string, allow: boolean): Promise<void> {
  const keys = await admin.dbsize();
  if (keys > 0 && !allow) {
    throw new ConfigError(
      '--redis',
      address,
      `an empty database: it holds ${keys} key${keys === 1 ? '' : 's'}. Pass --allow-nonempty to run anyway ` +
        `(only keys starting with "${prefix}" are written and deleted; nothing is flushed), or leave out --redis ` +
        'to use a private redis-server',
    );
  }
}

/**
 * Deletes the keys the run wrote. The counter is skipped when it holds another type: then it was
 * never ours (the run failed with WRONGTYPE on it) and is left as found.
 */
async function removeOwnKeys(admin: Redis, data: WorkloadData): Promise<void> {
  const type = await admin.type(data.counterKey);
  const keys = type === 'string' ? allKeys(data) : data.keys;
  await deleteKeys(admin, keys);
}

/** The get workload reads keys written here, outside any timing. */
async function preload(admin: Redis, data: WorkloadData | undefined): Promise<void> {
  if (!data) return;
  for (let from = 0; from < data.keys.length; from += 1000) {
    const args: (string | Buffer)[] = [];
    for (let i = from; i < Math.min(data.keys.length, from + 1000); i++) args.push(data.keys[i] as string, data.values[i] as Buffer);
    await admin.mset(args);
  }
}

/** Where a link's compensation came from, for its note: a number was the one given, not a measured hop. */
function compensationSource(c: NonNullable<BenchOptions['compensation']>): string {
  if (typeof c === 'object') return 'calibrated table';
  return c === 'auto' ? 'its own hop, measured at start' : 'as given';
}
