import type { Redis } from 'ioredis';
import { VerificationError } from '../errors.js';
import type { Counters } from '../stats/types.js';
import type { DriverClient } from './clients.js';
import type { ProxyProcess } from './proxy-process/spawn.js';
import type { WorkloadData } from './keys.js';
import type { Configuration } from './plan.js';
import { SHAPES } from './shapes/index.js';
import { serverUsec } from './server-stats.js';
import { verifyReplies, verifyStoredState } from './verify.js';

/** What one sample needs besides its configuration; all of it set up before the clock starts. */
export interface SampleEnv {
  /** A direct connection to Redis (not through the proxy) for reset, INFO and checks. */
  admin: Redis;
  client: DriverClient;
  proxy?: ProxyProcess;
  data: WorkloadData;
  luaSha: string;
  signal?: AbortSignal;
}

export interface SampleOutcome {
  ms: number;
  /** Send -> last reply of each wait, integer microseconds. */
  waitsUs: number[];
  /** Proxy counter deltas over the timed part; null on `direct`. */
  roundTrips: number | null;
  bytesUp: number | null;
  bytesDown: number | null;
  serverMs: number;
  /** The driver process's CPU over the timed part. */
  clientCpuMs: number;
  /** The link's proxy process's CPU over the timed part (the reads' own cost left out: read-cpu.ts); absent on `direct`. */
  proxyCpuMs?: number;
}

/**
 * One sample: reset, baselines, the timed shape run, deltas, then verification. Only the shape
 * run is timed: from preparing the first command to receiving the last reply. Throws
 * VerificationError on any wrong, missing or error reply.
 */
export async function runSample(c: Configuration, env: SampleEnv): Promise<SampleOutcome> {
  const { admin, data } = env;
  await resetState(admin, c, data);
  const waitsUs: number[] = [];
  const ctx = {
    redis: env.client.redis,
    workload: c.workload,
    n: c.n,
    batch: c.batch,
    data,
    luaSha: env.luaSha,
    waitDone: (startNs: bigint) => {
      waitsUs.push(Number((process.hrtime.bigint() - startNs) / 1000n));
    },
    ...(env.signal ? { signal: env.signal } : {}),
  };
  const shape = SHAPES[c.mode];
  env.client.lastError = undefined;

  const usecBefore = await serverUsec(admin);
  const readingBefore = await env.proxy?.read();
  const cpuBefore = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const replies = await shape.run(ctx);
  const t1 = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpuBefore);
  // Deltas, not resets: other clients (the auto-pipelining one) share the proxy's counters.
  const readingAfter = await env.proxy?.read();
  const usecAfter = await serverUsec(admin);
  const proxyBefore = readingBefore?.stats.totals;
  const proxyAfter = readingAfter?.stats.totals;

  verifyReplies(c.workload, replies, data, c.n);
  await verifyStoredState(admin, c.workload, data, c.n);
  // ioredis reports a reply that matched no command as an 'error' event, not through a command.
  const clientError = env.client.lastError as Error | undefined;
  if (clientError) throw new VerificationError(`the client reported: ${clientError.message}`);

  // A proxy started without its RESP tap counts nothing: report unknown, not zero round trips.
  const counting = proxyBefore && proxyAfter && proxyAfter.commands > proxyBefore.commands;
  const delta = (k: keyof Counters): number | null =>
    counting ? (proxyAfter[k] as number) - (proxyBefore[k] as number) : null;
  return {
    ms: Number(t1 - t0) / 1e6,
    waitsUs,
    roundTrips: delta('roundTrips'),
    bytesUp: delta('bytesUp'),
    bytesDown: delta('bytesDown'),
    serverMs: (usecAfter - usecBefore) / 1000,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    ...(readingBefore && readingAfter ? { proxyCpuMs: (readingAfter.cpuUs - readingBefore.cpuUs) / 1000 } : {}),
  };
}

/**
 * Equal work every sample: the counter back to 0, written keys deleted (get keys stay preloaded).
 * A counter key of another type is left alone, not clobbered: the sample then fails with the
 * server's WRONGTYPE at command 1, which says more than silently replacing it would.
 */
async function resetState(admin: Redis, c: Configuration, data: WorkloadData): Promise<void> {
  if (c.workload === 'incr') {
    const type = await admin.type(data.counterKey);
    if (type === 'none' || type === 'string') await admin.set(data.counterKey, '0');
  } else if (c.workload === 'set') {
    await deleteKeys(admin, data.keys.slice(0, c.n));
  }
}

export async function deleteKeys(admin: Redis, keys: readonly string[]): Promise<void> {
  for (let from = 0; from < keys.length; from += 1000) {
    await admin.del(...keys.slice(from, from + 1000));
  }
}
