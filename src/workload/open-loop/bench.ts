import { selfReportNote } from '../../stats/self-report.js';
import { interruptedMark } from '../../results/interrupted.js';
import type { PrivateRedis } from '../../redis/index.js';
import { ConfigError } from '../../errors.js';
import { fmtUsSetting } from '../../format.js';
import { refuseNonempty } from '../bench.js';
import { connectClient, type DriverClient } from '../clients.js';
import { IncrConnection } from './incr-connection.js';
import { IoredisIncrSender } from './ioredis-sender.js';
import type { IncrSender } from './sender.js';
import { connectionSetup, driverSetupSteps } from '../connection-setup.js';
import { describeEnvironment } from '../../results/environment.js';
import { forkProxiesAhead, openLink, type LinkEndpoint } from '../links.js';
import type { ForkedProxy } from '../proxy-process/spawn.js';
import { benchRedis, checkUserRedis } from '../redis-target.js';
import { redisVersion } from '../server-stats.js';
import { resolveOpenLoopOptions, type OpenLoopOptions } from './options.js';
import { openLoopResult } from './result.js';
import { counterValue, runOpenLoop, type OpenLoopRunProgress } from './run.js';
import type { OpenLoopMode, OpenLoopReport, OpenLoopResult } from './types.js';

export type OpenLoopProgress =
  | { type: 'note'; text: string }
  /** Every few seconds of a run: the run's label, its duration and where it is (OpenLoopRunProgress). */
  | ({ type: 'running'; label: string; durationS: number } & OpenLoopRunProgress)
  | { type: 'result'; result: OpenLoopResult };

/** Untimed closed loops over the run's own code and connections first, so V8 has optimised it. */
const WARMUP_US = 200_000;

/**
 * Open-loop runs across links: for each link, connection count, shape and batching window, the
 * rates in ascending order (a saturation sweep). Once a rate saturates, the higher ones of that
 * series are skipped: they would only drain a longer backlog. Spawns a private redis-server unless
 * `redis` is given; only the `<prefix>counter` key is written, and deleted afterwards.
 */
export async function runOpenLoopBench(options: OpenLoopOptions, progress?: (ev: OpenLoopProgress) => void): Promise<OpenLoopReport> {
  const startedAt = new Date();
  const o = resolveOpenLoopOptions(options);
  const notes: string[] = [];
  const results: OpenLoopResult[] = [];
  const counterKey = `${o.keyPrefix}counter`;
  let privateRedis: PrivateRedis | undefined;
  let admin: DriverClient | undefined;
  const links: LinkEndpoint[] = [];
  const aborted = (): boolean => options.signal?.aborted === true;
  let forks = new Map<string, ForkedProxy>();
  try {
    forks = forkProxiesAhead(o.links);
    const target = await benchRedis(options.redis);
    const endpoint = target.endpoint;
    privateRedis = target.privateRedis;
    const clientOpts = { ...(options.password !== undefined ? { password: options.password } : {}) };
    admin = await connectClient(endpoint, { ...clientOpts, protocol: 2 });
    if (!privateRedis) await checkUserRedis(admin.redis, options.redis ?? '');
    if (!privateRedis) await refuseNonempty(admin.redis, options.redis ?? '', o.keyPrefix, options.allowNonempty ?? false);
    const version = await redisVersion(admin.redis);

    let stoppedBy: string | undefined;
    for (const spec of o.links) {
      if (aborted()) break;
      try {
        const compensation = options.compensation ?? 'off';
        const forked = forks.get(spec.name);
        const linkOpts = { ...clientOpts, needAuto: false, seed: o.seed, compensation, ...(forked ? { forked } : {}) };
        const link = await openLink(spec, endpoint, linkOpts);
        links.push(link);
        const proxy = link.proxy;
        const roundTrips = proxy ? async () => (await proxy.read()).stats.totals.roundTrips : undefined;
        const proxyCpuUs = proxy ? async () => (await proxy.read()).cpuUs : undefined;
        for (const clients of o.clients) {
          for (const mode of o.modes) {
            if (aborted()) break;
            const conns = await connectMany(link, clients, mode, counterKey, options.password);
            try {
              await runOpenLoop({ clients: conns, multiplexed: mode !== 'seq', arrival: o.arrival, durationUs: WARMUP_US, batchWindowUs: 0, maxBatch: 1, seed: o.seed, drainLimitUs: 1_000_000 });
              // auto-pipelining batches by itself (one tick's commands per write): no window on top.
              for (const windowUs of mode === 'auto' ? [0] : o.batchWindowsUs) {
                for (const rate of o.rates ?? [undefined]) {
                  if (aborted()) break;
                  const label = `${spec.name} ${mode} C=${clients} ${rate === undefined ? 'closed loops' : `${rate}/s ${o.arrival}`}${windowUs > 0 ? ` window ${fmtUsSetting(windowUs)} B=${o.maxBatch}` : ''}`;
                  progress?.({ type: 'note', text: `${label}: ${fmtUsSetting(o.durationUs)}` });
                  await admin.redis.set(counterKey, '0');
                  const out = await runOpenLoop({
                    clients: conns,
                    multiplexed: mode !== 'seq',
                    ...(rate !== undefined ? { ratePerSec: rate } : {}),
                    arrival: o.arrival,
                    durationUs: o.durationUs,
                    batchWindowUs: windowUs,
                    maxBatch: windowUs > 0 ? o.maxBatch : 1,
                    seed: o.seed,
                    drainLimitUs: o.drainLimitUs,
                    ...(options.signal ? { signal: options.signal } : {}),
                    ...(roundTrips ? { roundTrips } : {}),
                    ...(proxyCpuUs ? { proxyCpuUs } : {}),
                    ...(progress ? { onProgress: (p: OpenLoopRunProgress) => progress({ type: 'running', label, durationS: o.durationUs / 1e6, ...p }) } : {}),
                  });
                  // Only after a run that succeeded: a failed one (a lost connection) keeps its row, where a
                  // Redis gone would also fail this read and take the row with it.
                  if (out.error === undefined && out.ledger.failed === 0) {
                    const stored = await counterValue(admin.redis, counterKey);
                    if (stored !== out.ledger.completed) out.error = `the counter holds ${stored} after ${out.ledger.completed} answered INCRs`;
                  }
                  const result = openLoopResult(
                    {
                      link: spec.name,
                      linkRttUs: spec.rttUs,
                      mode,
                      arrival: o.arrival,
                      clients,
                      ...(rate !== undefined ? { ratePerSec: rate } : {}),
                      durationUs: o.durationUs,
                      batchWindowUs: windowUs,
                      maxBatch: windowUs > 0 ? o.maxBatch : 1,
                      ...(o.sloUs !== undefined ? { sloUs: o.sloUs } : {}),
                    },
                    out,
                  );
                  results.push(result);
                  progress?.({ type: 'result', result });
                  if (result.saturated && rate !== undefined && rate !== o.rates?.[o.rates.length - 1]) {
                    notes.push(`${label}: saturated (${result.saturated === 'rate' ? 'achieved below 95% of the rate scheduled' : 'corrected p99 past --slo'}); higher rates of this series skipped`);
                    break;
                  }
                }
              }
            } finally {
              await Promise.all(conns.map((c) => c.close()));
            }
          }
        }
        const self = (await proxy?.read().catch(() => undefined))?.stats.self;
        const selfNote = self && selfReportNote(spec.name, self, spec.rttUs);
        if (selfNote) notes.push(selfNote);
        await link.close();
        links.pop();
      } catch (err) {
        // Outside a run (a Redis gone between runs, a link or connection that would not open, the
        // counter unreadable): the runs before it stand and are reported, as a failed run's would be.
        // Bad input found only now (a link's settings) stays an exit-2 refusal, as before.
        if (err instanceof ConfigError) throw err;
        stoppedBy = `${spec.name}: ${(err as Error).message.replace(/\.$/, '')}`;
        notes.push(`stopped on a failure outside a run: ${stoppedBy}; the runs after it were not started`);
        break;
      }
    }
    if (aborted()) notes.push('stopped on request: the rows below are the runs that finished (the last one up to the stop)');
    return {
      kind: 'open-loop', environment: describeEnvironment(version, startedAt), sloUs: o.sloUs ?? null, results, notes,
      // connectMany runs before the untimed warm-up of each series: no set-up inside a timed run.
      // A seq or mux connection speaks RESP2 and says nothing but AUTH (incr-connection.ts); auto's is ioredis's.
      connectionSetup: connectionSetup(o.links, driverSetupSteps(o.modes.includes('auto') ? clientOpts : { ...clientOpts, protocol: 2 })),
      ...(stoppedBy !== undefined ? { error: stoppedBy } : {}),
      ...interruptedMark(options.signal),
    };
  } finally {
    await Promise.allSettled(links.map((l) => l.close()));
    await Promise.allSettled([...forks.values()].map((f) => f.close()));
    if (admin && !privateRedis) await admin.redis.del(counterKey).catch(() => {});
    await admin?.close();
    await privateRedis?.stop();
  }
}

/**
 * The run's connections: ioredis clients for `auto` (its auto-pipelining is what is measured), bare
 * INCR connections for `seq` and `mux` (so the driver's CPU per command is small: docs/open-loop.md).
 */
async function connectMany(link: LinkEndpoint, n: number, mode: OpenLoopMode, key: string, password: string | undefined): Promise<IncrSender[]> {
  const conns: IncrSender[] = [];
  const one = async (): Promise<IncrSender> =>
    mode === 'auto'
      ? new IoredisIncrSender(await link.connect(true), key)
      : IncrConnection.open({ endpoint: link.target, key, replyTimeoutMs: link.replyTimeoutMs, ...(password !== undefined ? { password } : {}) });
  try {
    // In groups, so a thousand connections do not all hand-shake through one delay line at once.
    for (let i = 0; i < n; i += 32) {
      conns.push(...(await Promise.all(Array.from({ length: Math.min(32, n - i) }, one))));
    }
    return conns;
  } catch (err) {
    await Promise.all(conns.map((c) => c.close()));
    throw err;
  }
}
