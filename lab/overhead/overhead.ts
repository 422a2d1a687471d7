import { execFile } from 'node:child_process';
import { spread, type Spread } from '../../src/numbers/quantiles.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { parseEndpoint } from '../../src/endpoint.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { describeEnvironment } from '../../src/results/environment.js';
import type { Environment } from '../../src/results/types.js';
import { startBarePipe, type BarePipe } from './bare-pipe.js';
import { CLI_ARGV, spawnServerChild, type ServerChild } from './server-child.js';
import { pingFromChild } from '../../src/calibrate/pinger.js';
import type { Compensation } from '../../src/link/compensation.js';
import { calibrateAtStart } from '../../src/calibrate/at-start.js';

export type { Spread };

export interface ThroughputRow {
  /** redis-benchmark flags, e.g. "-c 1 -P 1". */
  load: string;
  test: string;
  directRps: Spread;
  proxyRps: Spread;
  /** A bare Node stream.pipe() proxy (no delay line, no tap): the floor for any Node proxy here. */
  pipeRps: Spread;
  /** proxy / direct, per repetition measured back to back. */
  ratio: Spread;
  /** pipe / direct, per repetition. */
  pipeRatio: Spread;
  /** proxy / pipe, per repetition: what redis-rtt costs beyond Node's own forwarding. */
  proxyToPipe: Spread;
}

export interface CpuRow {
  load: string;
  proxyUsPerRequest: Spread;
  pipeUsPerRequest: Spread;
  /** proxy / pipe, per repetition. */
  proxyToPipe: Spread;
}

export interface OverheadReport {
  kind: 'overhead';
  environment: Environment;
  repeat: number;
  tap: boolean;
  throughput: ThroughputRow[];
  /**
   * CPU the proxy's and the bare pipe's processes used per request, per load (SET and GET runs
   * together), microseconds; absent where /proc is not there to read it. Steadier than throughput
   * on a shared machine: it does not depend on what else got the cores.
   */
  cpu?: CpuRow[];
  /** N sequential SETs from a separate process through a link of `linkRttUs`. */
  sequential: {
    n: number;
    linkRttUs: number;
    directPerCommandUs: Spread;
    /** n x (link RTT + direct per-command time). */
    idealMs: number;
    /** Through the proxy with the compensation asked for (the verdict's figure). */
    totalMs: Spread;
    ratioToIdeal: Spread;
    /** What that proxy took off each one-way delay at this link, and where that came from. */
    compensationUs: number;
    compensation: SequentialCompensation;
    /**
     * Beside it, in the same repetitions: a proxy that takes off its hop only (the default `auto`),
     * so the wake-up cost a compensation table pays for stays visible. Absent when that is the
     * compensation asked for.
     */
    hopOnly?: { totalMs: Spread; ratioToIdeal: Spread; compensationUs: number };
  };
}

export type SequentialCompensation = 'hop (auto)' | 'constant' | 'calibrated table' | 'calibrated at start';

export interface OverheadOptions {
  repeat?: number;
  /** Parse RESP in the proxy (the default proxy), or run it as a plain byte pipe. */
  tap?: boolean;
  seqN?: number;
  linkRttUs?: number;
  /**
   * The sequential link's compensation: a calibrate table or a constant, or 'calibrate' to measure
   * this link against the private Redis first (as `proxy --compensate calibrate` does).
   * @default the hop only, measured at start
   */
  compensationUs?: Compensation | 'calibrate';
  /** Fraction of the default redis-benchmark request counts (tests run a small one). @default 1 */
  scale?: number;
  progress?: (line: string) => void;
}

const LOADS = [
  { load: '-c 1 -P 1', flags: ['-c', '1', '-P', '1'], requests: 20_000, warmUp: 5_000 },
  { load: '-c 50 -P 16', flags: ['-c', '50', '-P', '16'], requests: 400_000, warmUp: 200_000 },
];
const TARGETS = ['direct', 'proxy', 'pipe'] as const;
const BENCH_TESTS = ['set', 'get'];

/**
 * The proxy's own cost, measured side by side in one run: redis-benchmark throughput direct vs
 * through a zero-delay `redis-rtt proxy` and through a bare Node pipe, each in a process of its
 * own (the CLI from bin/, so it runs the built code), after an unrecorded warm-up of all three, the
 * order rotating per repetition; then N sequential SETs through a delayed link (proxies in this
 * process, the client in another) against the arithmetic n x (RTT + direct time).
 */
export async function runOverhead(options: OverheadOptions = {}): Promise<OverheadReport> {
  const repeat = options.repeat ?? 3;
  const tap = options.tap ?? true;
  const seqN = options.seqN ?? 1000;
  const linkRttUs = options.linkRttUs ?? 1000;
  const progress = options.progress ?? (() => {});
  const scale = options.scale ?? 1;
  const count = (n: number): string[] => ['-n', String(Math.max(100, Math.round(n * scale)))];
  const redis = await startPrivateRedis();
  let proxy: ServerChild | undefined;
  let pipe: BarePipe | undefined;
  let hopOnly: RedisRttProxy | undefined;
  let compensated: RedisRttProxy | undefined;
  try {
    // Each in a process of its own, as a user runs `redis-rtt proxy`: nothing else on its event
    // loop, and its CPU per request can be read from /proc.
    proxy = await startProxyProcess(redis.address, tap);
    pipe = await startBarePipe({ host: redis.host ?? '127.0.0.1', port: redis.port! });
    const at = { direct: redis, proxy, pipe };
    // Unrecorded: a fresh proxy runs its forwarding path interpreted until V8 has optimised it,
    // which cost the first repetition 10-30% of its throughput.
    for (const { load, flags, warmUp } of LOADS) {
      progress(`overhead: warm-up redis-benchmark ${load}`);
      for (const which of TARGETS) await redisBenchmark(at[which], [...flags, ...count(warmUp)]);
    }
    const samples = new Map<string, Record<'direct' | 'proxy' | 'pipe' | 'ratio' | 'pipeRatio' | 'proxyToPipe', number[]>>();
    const cpuSamples = new Map<string, { proxy: number[]; pipe: number[] }>();
    for (let r = 0; r < repeat; r++) {
      for (const { load, flags, requests } of LOADS) {
        const order = TARGETS.map((_, i) => TARGETS[(i + r) % TARGETS.length]!);
        const got: Partial<Record<(typeof TARGETS)[number], Record<string, number>>> = {};
        const cpu = cpuSamples.get(load) ?? { proxy: [], pipe: [] };
        cpuSamples.set(load, cpu);
        for (const which of order) {
          progress(`overhead: rep ${r + 1}/${repeat} redis-benchmark ${load} ${which}`);
          const n = count(requests);
          const before = which === 'direct' ? undefined : at[which].cpuUs();
          got[which] = await redisBenchmark(at[which], [...flags, ...n]);
          const after = which === 'direct' ? undefined : at[which].cpuUs();
          if (which !== 'direct' && before !== undefined && after !== undefined) {
            cpu[which].push((after - before) / (Number(n[1]) * BENCH_TESTS.length));
          }
        }
        for (const test of Object.keys(got.direct!)) {
          const key = `${load}|${test}`;
          const s = samples.get(key) ?? { direct: [], proxy: [], pipe: [], ratio: [], pipeRatio: [], proxyToPipe: [] };
          const d = got.direct![test]!;
          const p = got.proxy![test] ?? 0;
          const b = got.pipe![test] ?? 0;
          s.direct.push(d);
          s.proxy.push(p);
          s.pipe.push(b);
          s.ratio.push(p / d);
          s.pipeRatio.push(b / d);
          s.proxyToPipe.push(b > 0 ? p / b : 0);
          samples.set(key, s);
        }
      }
    }
    const throughput: ThroughputRow[] = [...samples].map(([key, s]) => {
      const [load, test] = key.split('|') as [string, string];
      return {
        load,
        test,
        directRps: spread(s.direct, 0),
        proxyRps: spread(s.proxy, 0),
        pipeRps: spread(s.pipe, 0),
        ratio: spread(s.ratio, 3),
        pipeRatio: spread(s.pipeRatio, 3),
        proxyToPipe: spread(s.proxyToPipe, 3),
      };
    });

    const cpu: CpuRow[] = [];
    for (const [load, c] of cpuSamples) {
      if (c.proxy.length !== repeat || c.pipe.length !== repeat) continue;
      cpu.push({
        load,
        proxyUsPerRequest: spread(c.proxy, 2),
        pipeUsPerRequest: spread(c.pipe, 2),
        proxyToPipe: spread(c.proxy.map((p, i) => p / c.pipe[i]!), 2),
      });
    }
    await proxy.close();
    await pipe.close();

    const asked = options.compensationUs;
    let compensation: SequentialCompensation = 'hop (auto)';
    if (asked !== undefined) {
      const half = linkRttUs / 2;
      const c = asked === 'calibrate' ? await calibrateAtStart(redis.address, { upUs: half, downUs: half }, progress) : asked;
      compensation = asked === 'calibrate' ? 'calibrated at start' : 'table' in asked ? 'calibrated table' : 'constant';
      if (c !== undefined) compensated = await startSingleNodeProxy({ upstream: redis.address, tap, log: () => {}, compensationUs: c });
    }
    hopOnly = await startSingleNodeProxy({ upstream: redis.address, tap, log: () => {} });
    const sequential = await runSequential({ redis, hopOnly, compensated, repeat, seqN, linkRttUs, progress });
    return {
      kind: 'overhead',
      environment: describeEnvironment(redis.version, new Date()),
      repeat,
      tap,
      throughput,
      ...(cpu.length > 0 ? { cpu } : {}),
      sequential: { ...sequential, compensation: compensated === undefined ? 'hop (auto)' : compensation },
    };
  } finally {
    await compensated?.close();
    await hopOnly?.close();
    await pipe?.close();
    await proxy?.close();
    await redis.stop();
  }
}

interface SequentialTargets {
  redis: PrivateRedis;
  hopOnly: RedisRttProxy;
  compensated: RedisRttProxy | undefined;
  repeat: number;
  seqN: number;
  linkRttUs: number;
  progress: (line: string) => void;
}

/**
 * N sequential SETs from a separate process, per repetition: direct first (the per-command time
 * the ideal adds), then through each proxy in rotated order.
 */
async function runSequential(t: SequentialTargets): Promise<Omit<OverheadReport['sequential'], 'compensation'>> {
  const { redis, seqN, linkRttUs } = t;
  const set = Buffer.from('*3\r\n$3\r\nSET\r\n$7\r\nseq:key\r\n$5\r\nvalue\r\n');
  const proxies = t.compensated === undefined ? [t.hopOnly] : [t.compensated, t.hopOnly];
  for (const p of proxies) p.setLink({ rttUs: linkRttUs });
  const perCmd: number[] = [];
  const totals = proxies.map(() => [] as number[]);
  for (let r = 0; r < t.repeat; r++) {
    t.progress(`overhead: rep ${r + 1}/${t.repeat} ${seqN} sequential SETs direct and at ${linkRttUs} us RTT`);
    const direct = await pingFromChild({ kind: 'tcp', host: redis.host!, port: redis.port! }, seqN, 100, set);
    perCmd.push(direct.reduce((a, b) => a + b, 0) / direct.length);
    for (let j = 0; j < proxies.length; j++) {
      const i = (j + r) % proxies.length;
      const through = await pingFromChild({ kind: 'tcp', host: proxies[i]!.host!, port: proxies[i]!.port! }, seqN, 20, set);
      totals[i]!.push(through.reduce((a, b) => a + b, 0) / 1000);
    }
  }
  const directPerCommandUs = spread(perCmd, 1);
  const ratios = (ms: number[]): Spread => spread(ms.map((m, r) => m / ((seqN * (linkRttUs + perCmd[r]!)) / 1000)), 3);
  const out: Omit<OverheadReport['sequential'], 'compensation'> = {
    n: seqN,
    linkRttUs,
    directPerCommandUs,
    idealMs: Math.round((seqN * (linkRttUs + directPerCommandUs.median)) / 100) / 10,
    totalMs: spread(totals[0]!, 1),
    ratioToIdeal: ratios(totals[0]!),
    compensationUs: proxies[0]!.compensationUs.up,
  };
  if (t.compensated !== undefined) {
    out.hopOnly = { totalMs: spread(totals[1]!, 1), ratioToIdeal: ratios(totals[1]!), compensationUs: t.hopOnly.compensationUs.up };
  }
  return out;
}

/** `redis-rtt proxy` with no delay, in its own process; its JSON line says where it listens. */
function startProxyProcess(upstream: string, tap: boolean): Promise<ServerChild> {
  const args = [...CLI_ARGV, 'proxy', '--upstream', upstream, '--listen', '127.0.0.1:0', '--compensate', '0', ...(tap ? [] : ['--no-tap'])];
  return spawnServerChild(
    args,
    (line) => {
      const listen = parseEndpoint(String((JSON.parse(line) as { listen?: unknown }).listen), 'the proxy\'s listening line');
      if (listen.kind !== 'tcp') throw new Error(`the proxy listens on ${listen.path}, not TCP`);
      return { host: listen.host, port: listen.port };
    },
    'redis-rtt proxy',
  );
}

function redisBenchmark(target: PrivateRedis | ServerChild, args: string[]): Promise<Record<string, number>> {
  const where = ['-h', target.host ?? '127.0.0.1', '-p', String(target.port)];
  return new Promise((resolve, reject) => {
    execFile('redis-benchmark', [...where, ...args, '-t', BENCH_TESTS.join(','), '--csv'], { timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`redis-benchmark failed: ${stderr || err.message} (install redis-tools)`));
        return;
      }
      const out: Record<string, number> = {};
      for (const line of stdout.split('\n')) {
        const m = /^"([A-Z_]+)","([\d.]+)"/.exec(line.trim());
        if (m) out[m[1]!] = Number(m[2]);
      }
      resolve(out);
    });
  });
}
