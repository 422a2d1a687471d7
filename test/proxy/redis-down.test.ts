import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { monotonicNs } from '../../src/clock.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { findFreePort } from '../../src/redis/free-port.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

const run = promisify(execFile);
const MS = 1e6;

/** What redis-cli prints (and its exit code) for one PING. */
async function cliPing(host: string, port: number): Promise<string> {
  try {
    const r = await run('redis-cli', ['-h', host, '-p', String(port), 'PING'], { timeout: 10_000 });
    return r.stdout.trim();
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; code?: number };
    return `${(err.stdout ?? '') + (err.stderr ?? '')}`.trim();
  }
}

/** redis-py's exception for one PING, or "PONG". */
async function pyPing(host: string, port: number): Promise<string> {
  const script = [
    'import redis',
    'try:',
    `  print('PONG' if redis.Redis(host='${host}', port=${port}, socket_timeout=3).ping() else '?')`,
    'except Exception as e:',
    "  print(type(e).__name__ + ': ' + str(e))",
  ].join('\n');
  return (await run('/usr/bin/python3', ['-c', script], { timeout: 20_000 })).stdout.trim();
}

/** Through the proxy, a Redis that is down is refused as it would be directly, and clients reconnect once it is back. */
describe('a Redis that is down looks down', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1000 }, compensationUs: { up: 0, down: 0 }, log: () => {} });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('redis-cli and redis-py read "Connection refused", ioredis ECONNREFUSED; all carry on when Redis is back', async () => {
    const ioredis = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true, retryStrategy: (n) => Math.min(n * 50, 2000) });
    const errors: string[] = [];
    ioredis.on('error', (e: Error) => errors.push(e.message));
    await ioredis.connect();
    await ioredis.set('k', 'v');
    redis.kill('SIGKILL');
    // The first to dial after the kill is reset (the proxy learns only then); ioredis's reconnects after it are refused.
    await vi.waitUntil(() => errors.some((e) => e.includes('ECONNREFUSED')), { timeout: 10_000, interval: 10 });
    expect(await cliPing(proxy.host!, proxy.port!)).toBe(`Could not connect to Redis at ${proxy.host}:${proxy.port}: Connection refused`);
    expect(await pyPing(proxy.host!, proxy.port!)).toMatch(/^ConnectionError: Error 111 connecting to .*Connection refused\.$/);
    const backNs = monotonicNs();
    await redis.restart();
    const readyNs = monotonicNs();
    // ioredis reconnects by itself: at its next retry (50 ms steps) after the proxy listens again (a probe every 50 ms).
    await vi.waitUntil(() => ioredis.status === 'ready', { timeout: 10_000, interval: 5 });
    const ioredisMs = (monotonicNs() - readyNs) / MS;
    expect(await ioredis.get('k')).toBe(null);
    expect(ioredisMs).toBeLessThan(3000);
    expect(await cliPing(proxy.host!, proxy.port!)).toBe('PONG');
    expect(await pyPing(proxy.host!, proxy.port!)).toBe('PONG');
    expect(readyNs).toBeGreaterThan(backNs);
    ioredis.disconnect();
  });
  // Option (b) closes the proxy's listener, never a connection: a Redis that stops listening on its port but
  // keeps its clients (CONFIG SET port, Redis 7) refuses new clients through the proxy while a live one carries on.
  it('a live connection is untouched while new ones are refused: CONFIG SET port away and back', async () => {
    const own = await startPrivateRedis();
    const p = await startSingleNodeProxy({ upstream: own.address, link: { rttUs: 1000 }, compensationUs: { up: 0, down: 0 }, log: () => {} });
    const live = new Redis({ host: p.host, port: p.port, lazyConnect: true, retryStrategy: () => null });
    const admin = new Redis({ host: own.host, port: own.port, lazyConnect: true, retryStrategy: () => null });
    try {
      await live.connect();
      await admin.connect();
      await live.set('live', 'kept');
      expect(await admin.config('SET', 'port', String(await findFreePort()))).toBe('OK');
      // The first new client is reset (the proxy learns by dialing); from then on the proxy refuses, as Redis would.
      await cliPing(p.host!, p.port!);
      await vi.waitFor(async () => expect(await cliPing(p.host!, p.port!)).toBe(`Could not connect to Redis at ${p.host}:${p.port}: Connection refused`), {
        timeout: 5000,
        interval: 50,
      });
      for (let i = 0; i < 20; i++) expect(await live.get('live')).toBe('kept');
      expect(live.status).toBe('ready');
      expect(await admin.config('SET', 'port', String(own.port))).toBe('OK');
      await vi.waitFor(async () => expect(await cliPing(p.host!, p.port!)).toBe('PONG'), { timeout: 5000, interval: 50 });
      expect(await live.get('live')).toBe('kept');
      expect(await pyPing(p.host!, p.port!)).toBe('PONG');
    } finally {
      live.disconnect();
      admin.disconnect();
      await p.close();
      await own.stop();
    }
  }, 30_000);
});
