/**
 * Soak benchmark (not in CI): steady load through one proxy for a bounded time, sampling the
 * proxy's memory and open handles, to show that nothing grows with time or connection churn.
 *
 *   npm run build && npm run lab:soak -- --seconds 120
 *
 * The proxy runs in this process (so RSS and getActiveResourcesInfo() are the proxy's own); the
 * load is redis-benchmark in child processes, run after run until the time is up, so connections
 * open and close all along (each run opens --clients new ones). Prints the samples, then RSS
 * min/median/max and the handle count delta (after the load, all connections closed, vs before).
 * Exits 1 when handles or connections are left over.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis } from '../../src/redis/index.js';
import { spread } from '../../src/numbers/quantiles.js';
import { countHandles, handleDelta, mib, renderSample, type SoakSample } from './samples.js';

export interface SoakOptions {
  seconds: number;
  sampleSeconds: number;
  clients: number;
  rttUs: number;
}

export const DEFAULT_SOAK: SoakOptions = { seconds: 120, sampleSeconds: 5, clients: 50, rttUs: 1000 };

/** Alternating shapes: plain request/response and pipelined, so both paths soak. */
const RUN_SHAPES = [
  ['-t', 'set,get,incr,lpush,lpop', '-P', '1', '-n', '20000'],
  ['-t', 'set,get,mset', '-P', '16', '-n', '200000', '-d', '256'],
];

export async function soak(o: SoakOptions, out: (line: string) => void): Promise<number> {
  const redis = await startPrivateRedis({ args: ['--maxclients', '4096'] });
  const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: o.rttUs }, log: () => undefined });
  out(`soak: ${o.seconds} s through ${proxy.address} -> ${redis.address}, ${o.rttUs} us RTT, ${o.clients} clients per redis-benchmark run`);
  // After the first line: writing to a piped stdout opens a handle of its own.
  const before = countHandles();

  const t0 = Date.now();
  const samples: SoakSample[] = [];
  const sample = (): void => {
    const s = proxy.stats();
    const m = process.memoryUsage();
    const one: SoakSample = {
      atS: Math.round((Date.now() - t0) / 1000),
      rssBytes: m.rss,
      heapUsedBytes: m.heapUsed,
      activeConnections: s.connections.active,
      commands: s.totals.commands,
      handles: countHandles(),
    };
    samples.push(one);
    out(renderSample(one));
  };
  sample();
  const timer = setInterval(sample, o.sampleSeconds * 1000);

  let runs = 0;
  let failedRuns = 0;
  while (Date.now() - t0 < o.seconds * 1000) {
    const shape = RUN_SHAPES[runs % RUN_SHAPES.length]!;
    const ok = await benchmarkRun(proxy.host!, proxy.port!, o.clients, shape, o.seconds * 1000 - (Date.now() - t0));
    runs++;
    if (!ok) failedRuns++;
  }
  clearInterval(timer);

  // Let every connection close, then compare handles with the start.
  const drainStart = Date.now();
  while (proxy.stats().connections.active > 0 && Date.now() - drainStart < 10_000) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 200));
  sample();
  const final = proxy.stats();
  const delta = handleDelta(before, countHandles());
  // Under load: every sample but the idle one at the start and the one after the drain.
  const loaded = samples.length > 2 ? samples.slice(1, -1) : samples;
  const rss = spread(loaded.map((s) => s.rssBytes));
  const heap = spread(loaded.map((s) => s.heapUsedBytes));
  const elapsedS = (Date.now() - t0) / 1000;
  out('');
  out(`runs: ${runs} redis-benchmark runs (${failedRuns} failed), ${final.connections.total} connections, ${final.totals.commands} commands, ${final.totals.replies} replies, ${final.totals.errorReplies} error replies, ${Math.round(final.totals.commands / elapsedS)} commands/s`);
  out(`rss under load:  min ${mib(rss.min)}  median ${mib(rss.median)}  max ${mib(rss.max)}  (${loaded.length} samples every ${o.sampleSeconds} s; idle before ${mib(samples[0]!.rssBytes)}, after ${mib(samples.at(-1)!.rssBytes)})`);
  out(`heap under load: min ${mib(heap.min)}  median ${mib(heap.median)}  max ${mib(heap.max)}`);
  out(`handles after - before: ${Object.keys(delta).length === 0 ? 'none (0)' : JSON.stringify(delta)}; active connections at the end: ${final.connections.active}`);

  await proxy.close();
  await redis.stop();
  return Object.keys(delta).length === 0 && final.connections.active === 0 && failedRuns === 0 ? 0 : 1;
}

/** One redis-benchmark run; killed when the soak's time is up. Resolves true when it exited cleanly. */
function benchmarkRun(host: string, port: number, clients: number, shape: string[], budgetMs: number): Promise<boolean> {
  const child = spawn('redis-benchmark', ['-h', host, '-p', String(port), '-c', String(clients), '-q', ...shape], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGINT'), Math.max(0, budgetMs));
  return new Promise((resolve) => {
    child.on('error', () => resolve(false));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve((code === 0 || signal === 'SIGINT') && !/error/i.test(stderr));
    });
  });
}

export function parseSoakArgs(argv: string[]): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string' },
      'sample-seconds': { type: 'string' },
      clients: { type: 'string' },
      'rtt-us': { type: 'string' },
    },
  });
  const num = (v: string | undefined, d: number, name: string): number => {
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: expected a positive number, got ${JSON.stringify(v)}`);
    return n;
  };
  return {
    seconds: num(values.seconds, DEFAULT_SOAK.seconds, 'seconds'),
    sampleSeconds: num(values['sample-seconds'], DEFAULT_SOAK.sampleSeconds, 'sample-seconds'),
    clients: num(values.clients, DEFAULT_SOAK.clients, 'clients'),
    rttUs: values['rtt-us'] === '0' ? 0 : num(values['rtt-us'], DEFAULT_SOAK.rttUs, 'rtt-us'),
  };
}
