import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { rawCommands, startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { describeEnvironment } from '../../src/results/environment.js';
import type { Environment } from '../../src/results/types.js';
import { cpuNs, preemptions } from '../tools/proc.mjs';
import { rotated, requestsFor, shapeLabel, cellLabel, type Cell, type Shape } from './plan.js';
import { BENCH_KEY, runGetBenchmark } from './redis-benchmark.js';
import {
  excessTable,
  LOAD_WARNING,
  loadWarnings,
  throughputTable,
  type ExcessRow,
  type LatencySample,
  type LatencyTarget,
  type ThroughputRow,
  type ThroughputSample,
  type ThroughputTarget,
} from './summary.js';
import { setProcessNice, startHaproxy, startRedisRtt, startToxiproxy, type RedisRttTarget, type Target, type ToxiproxyTarget } from './targets.js';

export interface VsToxiproxyOptions {
  toxiproxyPath: string;
  rounds: number;
  cells: Cell[];
  shapes: Shape[];
  /** redis-benchmark -n per latency run; else about `seconds` of traffic per run. */
  requests?: number;
  /** At least this many requests per latency run (with `seconds`; not with `requests`). */
  minRequests?: number;
  seconds: number;
  /** -n of a -P 1 throughput run; a pipelined run sends P times as many, so it lasts about as long. */
  throughputRequests: number;
  /** HAProxy's binary, to add it to the throughput runs. */
  haproxyPath?: string;
  /** Before each round, wait up to this long for the 1-minute load average to fall under LOAD_WARNING. */
  settleSeconds?: number;
  /** Every proxy's nice value (all its threads); Redis and redis-benchmark keep theirs. Unset: not changed. */
  nice?: number;
  progress: (line: string) => void;
}

export interface VsToxiproxyReport {
  kind: 'vs-toxiproxy';
  environment: Environment;
  toxiproxyVersion: string;
  rounds: number;
  /** The proxies' nice value, if the run set one. */
  nice?: number;
  /** 1-minute load average at the start of each round. */
  loadByRound: number[];
  warnings: string[];
  latency: ExcessRow[];
  throughput: ThroughputRow[];
  samples: { latency: LatencySample[]; throughput: ThroughputSample[] };
}

/** The value the GET runs read: 3 bytes, redis-benchmark's default -d. */
const BENCH_VALUE = 'xxx';

/**
 * redis-rtt and toxiproxy side by side in one run, each in a process of its own in front of one
 * private Redis (no persistence): per round, every latency cell runs direct, through redis-rtt and
 * through toxiproxy in rotated order, then every throughput shape with no delay. The first round
 * starts each cell and shape with an unrecorded warm-up run per target.
 */
export async function runVsToxiproxy(o: VsToxiproxyOptions): Promise<VsToxiproxyReport> {
  const started = new Date();
  let redis: PrivateRedis | undefined;
  let tmp: string | undefined;
  const open: Target[] = [];
  const cleanUp = async (): Promise<void> => {
    await Promise.allSettled(open.splice(0).map((t) => t.close()));
    await redis?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  };
  const onSignal = (): void => void cleanUp().finally(() => process.exit(130));
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    redis = await startPrivateRedis();
    const redisPort = redis.port!;
    await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: redisPort }, [['SET', BENCH_KEY, BENCH_VALUE]]);
    const rtt: RedisRttTarget = await startRedisRtt(redisPort);
    open.push(rtt);
    const toxi: ToxiproxyTarget = await startToxiproxy(o.toxiproxyPath, redisPort);
    open.push(toxi);
    let haproxy: Target | undefined;
    if (o.haproxyPath && o.shapes.length > 0) {
      tmp = await mkdtemp(join(os.tmpdir(), 'vs-toxiproxy-'));
      haproxy = await startHaproxy(tmp, redisPort, o.haproxyPath);
      open.push(haproxy);
    }
    const direct: Target = { port: redisPort, pid: 0, setDelayDownMs: async () => {}, close: async () => {} };
    const latencyTargets: Record<LatencyTarget, Target> = { direct, 'redis-rtt': rtt, toxiproxy: toxi };
    const throughputTargets: Partial<Record<ThroughputTarget, Target>> = { ...latencyTargets, ...(haproxy ? { haproxy } : {}) };
    for (const t of [rtt, toxi, ...(haproxy ? [haproxy] : [])]) {
      if (o.nice !== undefined) setProcessNice(t.pid, o.nice);
      await checkOneGet(t.port);
    }

    const loadByRound: number[] = [];
    const latency: LatencySample[] = [];
    const throughput: ThroughputSample[] = [];
    for (let round = 0; round < o.rounds; round++) {
      // The runs themselves raise the load average; let it fall before the next round starts.
      await settleLoad(o.settleSeconds ?? 0, o.progress);
      loadByRound.push(os.loadavg()[0]!);
      o.progress(`round ${round + 1}/${o.rounds}, load average ${loadByRound[round]!.toFixed(2)}`);
      for (const [i, cell] of o.cells.entries()) {
        await rtt.setDelayDownMs(cell.delayMs);
        await toxi.setDelayDownMs(cell.delayMs);
        const requests = o.requests ?? requestsFor(cell, o.seconds, o.minRequests);
        const run = { redisPort, requests, clients: cell.clients, pipeline: 1 };
        if (round === 0) {
          o.progress(`  ${cellLabel(cell)}: warm-up`);
          const warmUp = Math.max(4 * cell.clients, Math.ceil(requests / 5));
          for (const t of Object.values(latencyTargets)) await runGetBenchmark({ ...run, port: t.port, requests: warmUp });
        }
        for (const target of rotated(['direct', 'redis-rtt', 'toxiproxy'] as const, round, i)) {
          const t = latencyTargets[target];
          if (target === 'redis-rtt') await rtt.resetStats();
          const cpu0 = cpuNs(t.pid);
          const preempted0 = preemptions(t.pid);
          const r = await runGetBenchmark({ ...run, port: t.port });
          const cpuUsPerRequest = t.pid ? (cpuNs(t.pid) - cpu0) / 1000 / requests : undefined;
          const preemptedPerRequest = t.pid ? (preemptions(t.pid) - preempted0) / requests : undefined;
          const self = target === 'redis-rtt' ? await rtt.self() : undefined;
          const { p50Ms, p99Ms, maxMs } = r;
          const sample: LatencySample = { round, cell, target, requests, p50Ms, p99Ms, maxMs, ...(self ? { self } : {}) };
          latency.push(cpuUsPerRequest === undefined || preemptedPerRequest === undefined ? sample : { ...sample, cpuUsPerRequest, preemptedPerRequest });
          o.progress(`  ${cellLabel(cell)} ${target}: p50/p99/max ${r.p50Ms}/${r.p99Ms}/${r.maxMs} ms`);
        }
      }
      if (o.shapes.length > 0) {
        await rtt.setDelayDownMs(0);
        await toxi.setDelayDownMs(0);
      }
      for (const [j, shape] of o.shapes.entries()) {
        const requests = o.throughputRequests * shape.pipeline;
        const run = { redisPort, requests, clients: shape.clients, pipeline: shape.pipeline };
        const names = Object.keys(throughputTargets) as ThroughputTarget[];
        if (round === 0) {
          o.progress(`  ${shapeLabel(shape)}: warm-up`);
          for (const name of names) await runGetBenchmark({ ...run, port: throughputTargets[name]!.port });
        }
        for (const target of rotated(names, round, o.cells.length + j)) {
          const t = throughputTargets[target]!;
          const cpu0 = cpuNs(t.pid);
          const r = await runGetBenchmark({ ...run, port: t.port });
          const cpuUsPerRequest = t.pid ? (cpuNs(t.pid) - cpu0) / 1000 / requests : undefined;
          throughput.push({ round, shape, target, requests, rps: r.rps, ...(cpuUsPerRequest === undefined ? {} : { cpuUsPerRequest }) });
          o.progress(`  ${shapeLabel(shape)} ${target}: ${Math.round(r.rps)} rps`);
        }
      }
    }
    return {
      kind: 'vs-toxiproxy',
      environment: describeEnvironment(redis.version, started),
      toxiproxyVersion: toxi.version,
      rounds: o.rounds,
      ...(o.nice === undefined ? {} : { nice: o.nice }),
      loadByRound,
      warnings: loadWarnings(loadByRound),
      latency: excessTable(latency, o.cells),
      throughput: throughputTable(throughput, o.shapes),
      samples: { latency, throughput },
    };
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    await cleanUp();
  }
}

/** One GET through a proxy before anything is measured: the reply is the preloaded value. */
async function checkOneGet(port: number): Promise<void> {
  const [reply] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, [['GET', BENCH_KEY]], 5000);
  if (reply?.type !== '$' || reply.text !== BENCH_VALUE) throw new Error(`GET through port ${port} answered ${JSON.stringify(reply)}, not "${BENCH_VALUE}"`);
}

/** Waits until the 1-minute load average is under LOAD_WARNING, checking every 5 s, for at most `seconds`. */
async function settleLoad(seconds: number, progress: (line: string) => void): Promise<void> {
  const until = Date.now() + seconds * 1000;
  if (os.loadavg()[0]! < LOAD_WARNING || seconds <= 0) return;
  progress(`waiting up to ${seconds} s for the load average (${os.loadavg()[0]!.toFixed(2)}) to fall under ${LOAD_WARNING}`);
  while (os.loadavg()[0]! >= LOAD_WARNING && Date.now() < until) await delay(5000);
}
