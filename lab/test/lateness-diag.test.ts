/**
 * `npm run lab:lateness` preloads lab/tools/lateness-diag.mjs into each proxy; the diag wraps the
 * scheduler's private parts, so a scheduler change can break it. This runs it as the sweep does,
 * against a real Redis, so that break shows here and not when someone next measures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const GETS = 30;

interface Quantiles {
  n: number;
  p50: number;
  p99: number;
  max: number;
}
interface DiagReport {
  lateWokenUs: Quantiles;
  latePolledUs: Quantiles;
  wakeLateUs: Quantiles;
  elu: number;
}

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** A proxy with the diag preloaded, as lateness-sweep.mjs starts it; its listening port. */
async function diagProxy(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const argv = ['--import', resolve(ROOT, 'lab/tools/lateness-diag.mjs'), resolve(ROOT, 'bin/redis-rtt.js'), 'proxy'];
  argv.push('--upstream', redis.address, '--listen', '127.0.0.1:0', '--rtt', '2ms', '--compensate', 'off', '--no-handshake');
  const child = spawn(process.execPath, argv, {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, ...env, LATENESS_DIST: resolve(ROOT, 'dist') },
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"listen":"[^"]*:(\d+)"/.exec(out);
      if (m) done(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`the proxy exited (${code}) before listening: ${err}`)));
  });
  return { child, port };
}

function report(child: ChildProcess): Promise<DiagReport> {
  return new Promise((done) => {
    child.once('message', (m) => done(m as DiagReport));
    child.send({ cmd: 'report' });
  });
}

/** GETS sequential GETs through the proxy, then the diag's report. */
async function measure(env: Record<string, string>): Promise<DiagReport> {
  const { child, port } = await diagProxy(env);
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await client.connect();
    for (let i = 0; i < GETS; i++) expect(await client.get(`lateness-diag:${i}`)).toBeNull();
    return await report(child);
  } finally {
    client.disconnect();
    child.kill('SIGTERM');
  }
}

describe('lab/tools/lateness-diag.mjs, preloaded into a proxy', () => {
  it('times every delivery of both directions, and the wakes before them', async () => {
    const r = await measure({});
    // Each GET is a request delivered up and a reply delivered down, 1 ms each; ioredis's own
    // start-up commands (if any) add to that, never take from it.
    expect(r.lateWokenUs.n + r.latePolledUs.n).toBeGreaterThanOrEqual(2 * GETS);
    // 1 ms is past the thread's shortest sleep: most deliveries were slept for.
    expect(r.lateWokenUs.n).toBeGreaterThanOrEqual(GETS);
    expect(r.wakeLateUs.n).toBeGreaterThanOrEqual(GETS);
    expect(r.elu).toBeGreaterThan(0);
  }, 30_000);

  it('LATENESS_SPIN_US takes effect: a fixed 900 us margin leaves too little to sleep before a 1 ms delivery', async () => {
    const r = await measure({ LATENESS_SPIN_US: '900' });
    expect(r.lateWokenUs.n + r.latePolledUs.n).toBeGreaterThanOrEqual(2 * GETS);
    // Every wake would come 100 us after arming, under the thread's shortest sleep: the scheduler polls.
    expect(r.wakeLateUs.n).toBe(0);
    expect(r.lateWokenUs.n).toBe(0);
  }, 30_000);
});
