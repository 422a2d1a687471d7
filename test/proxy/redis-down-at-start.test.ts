import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterEach, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

const run = promisify(execFile);

/** What redis-cli prints for one PING (its error text when it fails). */
async function cliPing(host: string, port: number): Promise<string> {
  try {
    return (await run('redis-cli', ['-h', host, '-p', String(port), 'PING'], { timeout: 10_000 })).stdout.trim();
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return `${(err.stdout ?? '') + (err.stderr ?? '')}`.trim();
  }
}

let redis: PrivateRedis | undefined;
let proxy: RedisRttProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await redis?.stop();
});

/**
 * A Redis that is already down when the proxy starts (docs/redis-down.md): the start's own dial
 * learns it, so the very first client is refused as by Redis's own port, not accepted and reset
 * (redis-cli said "Connection reset by peer", ioredis "read ECONNRESET").
 */
it('a Redis down at start: the first client is refused (redis-cli, ioredis), and served once Redis is up', async () => {
  redis = await startPrivateRedis();
  redis.kill('SIGKILL');
  const logs: string[] = [];
  proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1000 }, compensationUs: { up: 0, down: 0 }, log: (l) => logs.push(l) });
  expect(await cliPing(proxy.host!, proxy.port!)).toBe(`Could not connect to Redis at ${proxy.host}:${proxy.port}: Connection refused`);
  expect(logs).toContain("upstream refused the start-up's dial: not listening until it answers, so clients are refused as by Redis itself");
  const errors: string[] = [];
  const c = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true, retryStrategy: (n) => Math.min(n * 50, 500) });
  c.on('error', (e: Error) => errors.push(e.message));
  try {
    await c.connect().catch(() => undefined);
    await vi.waitUntil(() => errors.length > 0, { timeout: 5000, interval: 10 });
    expect(errors[0]).toBe(`connect ECONNREFUSED ${proxy.host}:${proxy.port}`);
    await redis.restart();
    await vi.waitUntil(() => c.status === 'ready', { timeout: 10_000, interval: 10 });
    expect(await c.ping()).toBe('PONG');
    expect(errors.every((e) => e.includes('ECONNREFUSED'))).toBe(true);
    expect(logs).toContain('upstream answers again: listening');
  } finally {
    c.disconnect();
  }
});

it("a unix-socket Redis stopped cleanly (its socket file removed) is down too: refused at start, served once it is back", async () => {
  redis = await startPrivateRedis({ transport: 'unix' });
  const socket = redis.socketPath!;
  redis.kill('SIGTERM');
  // Redis removes its socket file as it shuts down: the dial then fails with ENOENT, not ECONNREFUSED.
  await vi.waitUntil(() => !existsSync(socket), { timeout: 10_000, interval: 10 });
  const logs: string[] = [];
  proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1000 }, compensationUs: { up: 0, down: 0 }, log: (l) => logs.push(l) });
  expect(await cliPing(proxy.host!, proxy.port!)).toBe(`Could not connect to Redis at ${proxy.host}:${proxy.port}: Connection refused`);
  await redis.restart();
  await vi.waitFor(async () => expect(await cliPing(proxy!.host!, proxy!.port!)).toBe('PONG'), { timeout: 10_000, interval: 50 });
  expect(logs.filter((l) => l.startsWith('upstream '))).toEqual([
    "upstream refused the start-up's dial: not listening until it answers, so clients are refused as by Redis itself",
    'upstream answers again: listening',
  ]);
  // Stopped while the proxy runs: the client that learns it is reset, the ones after it refused
  // (they were closed, "Server closed the connection", every time).
  redis.kill('SIGTERM');
  await vi.waitUntil(() => !existsSync(socket), { timeout: 10_000, interval: 10 });
  await cliPing(proxy.host!, proxy.port!);
  await vi.waitFor(async () => expect(await cliPing(proxy!.host!, proxy!.port!)).toBe(`Could not connect to Redis at ${proxy!.host}:${proxy!.port}: Connection refused`), {
    timeout: 5000,
    interval: 50,
  });
});

it('a Redis that is up at start: the proxy listens at once, with no refusal logged', async () => {
  redis = await startPrivateRedis();
  const logs: string[] = [];
  proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1000 }, compensationUs: { up: 0, down: 0 }, log: (l) => logs.push(l) });
  expect(await cliPing(proxy.host!, proxy.port!)).toBe('PONG');
  expect(logs.filter((l) => l.includes('refused'))).toEqual([]);
});
