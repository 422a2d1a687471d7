import { Redis } from 'ioredis';
import net from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis({ tls: true });
});
afterAll(async () => {
  await redis?.stop();
});

/** True when a TCP connect to the port is refused (nothing listens). */
function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(false)));
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** What Redis logs for a connection to its TLS port that closed before or during the handshake. */
const EOF_LINE = /Error accepting a client connection/;

/**
 * The start's own dial (is Redis refusing?) used to connect TCP and close at once: a TLS Redis then
 * logged `Error accepting a client connection: ... unexpected eof while reading` at every proxy
 * start. It now finishes the handshake and ends with a close_notify.
 */
it('a proxy start toward a TLS Redis leaves no handshake error in Redis\'s log', async () => {
  const logs: string[] = [];
  const proxy = await startSingleNodeProxy({
    upstream: redis.address,
    upstreamTls: { ca: redis.tls!.caFile },
    compensationUs: { up: 0, down: 0 },
    log: (l) => logs.push(l),
  });
  try {
    // A command through the proxy: Redis has handled the start's connection, and its close, before it.
    const c = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true, maxRetriesPerRequest: 0 });
    await c.connect();
    expect(await c.ping()).toBe('PONG');
    c.disconnect();
  } finally {
    await proxy.close();
  }
  expect(logs.filter((l) => /refused/.test(l))).toEqual([]);
  expect(redis.stderr()).not.toMatch(EOF_LINE);
  expect(redis.stderr()).toMatch(/Ready to accept connections/);
});

it('a TLS Redis down at start is refused from the first client on; its return is learnt with no handshake error logged', async () => {
  const down = await startPrivateRedis({ tls: true });
  down.kill('SIGKILL');
  // kill() does not wait for the process to go: until it has, its port still accepts.
  await vi.waitUntil(() => refuses(down.port!), { timeout: 10_000, interval: 20 });
  const logs: string[] = [];
  const proxy = await startSingleNodeProxy({
    upstream: down.address,
    upstreamTls: { ca: down.tls!.caFile },
    compensationUs: { up: 0, down: 0 },
    log: (l) => logs.push(l),
  });
  try {
    expect(logs).toContain("upstream refused the start-up's dial: not listening until it answers, so clients are refused as by Redis itself");
    // The probe that learns Redis is back used to connect TCP and close: one more error line in its log.
    await down.restart();
    await vi.waitUntil(() => logs.includes('upstream answers again: listening'), { timeout: 10_000, interval: 20 });
    const c = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true, maxRetriesPerRequest: 0 });
    await c.connect();
    expect(await c.ping()).toBe('PONG');
    c.disconnect();
    expect(down.stderr()).toMatch(/Ready to accept connections/);
    expect(down.stderr()).not.toMatch(EOF_LINE);
  } finally {
    await proxy.close();
    await down.stop();
  }
});
