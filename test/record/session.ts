/**
 * End-to-end helpers: a proxy in front of a private redis-server with the recorder on, and the
 * workloads the validation runs (the same code with and without recording, on any link).
 */
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis, type RedisOptions } from 'ioredis';
import { vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { ProxyOptions, RedisRttProxy } from '../../src/proxy/types.js';
import { createRecorder, type RecordingSummary } from '../../src/record/recorder.js';
import type { KeyMode } from '../../src/record/trace-format.js';
import { readTrace, type Trace } from '../../src/record/trace-reader.js';
import type { StatsSnapshot, TapEvent } from '../../src/stats/types.js';

export interface Recorded {
  trace: Trace;
  summary: RecordingSummary;
  /** The workload's wall time as the client saw it, ms. */
  clientWallMs: number;
  /** The proxy's own counters at the end, to hold the trace against. */
  stats: StatsSnapshot;
}

/** Runs `work` against a proxy (link rttUs) with the recorder on; resolves once every connection closed. */
export async function recordSession(
  upstream: string,
  path: string,
  work: (p: RedisRttProxy) => Promise<number>,
  o: { rttUs?: number; keys?: KeyMode; proxy?: Partial<ProxyOptions> } = {},
): Promise<Recorded> {
  const rttUs = o.rttUs ?? 0;
  const link = { upUs: Math.floor(rttUs / 2), downUs: rttUs - Math.floor(rttUs / 2), jitterUs: 0, jitterDist: 'uniform' as const, bandwidthBps: 0, lossUp: 0, lossDown: 0, lossBurst: 0, mssBytes: 1448, handshake: true };
  const recorder = createRecorder({ path, link, keys: o.keys ?? 'none' });
  const events: TapEvent[] = [];
  const proxy = await startSingleNodeProxy({
    upstream,
    link: { rttUs },
    ...o.proxy,
    argSizes: true,
    keyHash: recorder.keyHash,
    onEvent: (e) => {
      events.push(e);
      recorder.onEvent(e);
    },
    log: () => {},
  });
  try {
    const clientWallMs = await work(proxy);
    await vi.waitUntil(() => {
      const opened = events.filter((e) => e.type === 'open').length;
      return opened > 0 && events.filter((e) => e.type === 'close').length === opened;
    }, { timeout: 5000, interval: 5 });
    const stats = proxy.stats();
    const summary = await recorder.close();
    return { trace: await readTrace(path), summary, clientWallMs, stats };
  } finally {
    await proxy.close();
    await recorder.close();
  }
}

/** Times a workload through a proxy without recording; also returns the proxy's counters. */
export async function timeSession(
  upstream: string,
  rttUs: number,
  work: (p: RedisRttProxy) => Promise<number>,
  extra: Partial<ProxyOptions> = {},
): Promise<{ wallMs: number; stats: StatsSnapshot }> {
  const proxy = await startSingleNodeProxy({ upstream, link: { rttUs }, log: () => {}, ...extra });
  try {
    const wallMs = await work(proxy);
    return { wallMs, stats: proxy.stats() };
  } finally {
    await proxy.close();
  }
}

export function ioredis(p: RedisRttProxy, extra: RedisOptions = {}): Redis {
  return new Redis({ host: p.host, port: p.port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...extra });
}

/**
 * The validation workload: connect, load 200 keys in one MSET, read them back one GET at a time (an N+1
 * loop), then 5 pipelines of 50 INCRs, then QUIT. Returns the client's wall time in ms.
 */
export async function loopAndPipelines(p: RedisRttProxy, extra: RedisOptions = {}): Promise<number> {
  const t0 = performance.now();
  const r = ioredis(p, extra);
  await r.connect();
  const kv: string[] = [];
  for (let i = 0; i < 200; i++) kv.push(`rtt:k:${i}`, `v${i}`);
  await r.mset(...kv);
  for (let i = 0; i < 200; i++) {
    const v = await r.get(`rtt:k:${i}`);
    if (v !== `v${i}`) throw new Error(`GET rtt:k:${i} returned ${v}`);
  }
  for (let b = 0; b < 5; b++) {
    const pipe = r.pipeline();
    for (let i = 0; i < 50; i++) pipe.incr(`rtt:c:${b}`);
    await pipe.exec();
  }
  await r.quit();
  return performance.now() - t0;
}

const APP = fileURLToPath(new URL('../../fixtures/record/loop-and-pipelines.mjs', import.meta.url));

/** The same workload as loopAndPipelines, in a process of its own; resolves with its wall time in ms. */
export function loopAndPipelinesProcess(p: RedisRttProxy): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [APP, p.host!, String(p.port)], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`));
      resolve((JSON.parse(stdout) as { wallMs: number }).wallMs);
    });
  });
}

/** Runs redis-cli with `script` on stdin (one command a line); resolves with its stdout. */
export function redisCli(p: RedisRttProxy, script: string, args: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-cli', ['-h', p.host!, '-p', String(p.port), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`redis-cli exited ${code}: ${err}`))));
    child.stdin.end(script);
  });
}
