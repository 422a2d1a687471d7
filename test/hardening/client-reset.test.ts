import net from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { openFdCount } from './helpers/proc.js';
import { pingRaw } from './helpers/raw-ping.js';

/** Sockets and pipes this process holds open (what a leaked connection would leave behind). */
function socketHandles(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'PipeWrap').length;
}

function incrs(key: string, n: number): string {
  return `*2\r\n$4\r\nINCR\r\n$${key.length}\r\n${key}\r\n`.repeat(n);
}

function setName(name: string): string {
  return `*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$${name.length}\r\n${name}\r\n`;
}

/** Connects to `where` (a proxy's host:port or unix path): resolved once connected, rejected if the connect fails. */
async function connectTo(where: { host?: string; port?: number; path?: string }): Promise<net.Socket> {
  const s = where.path ? net.connect({ path: where.path }) : net.connect({ host: where.host!, port: where.port!, noDelay: true });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('error', reject);
  });
  // Later errors (the resets these tests cause) are what is under test, not failures.
  s.on('error', () => undefined);
  return s;
}

describe('a client that resets mid-pipeline', () => {
  let redis: PrivateRedis;
  let admin: Redis;
  let proxy: RedisRttProxy;
  const logs: string[] = [];

  beforeAll(async () => {
    // Redis keeps a slow client's backlog instead of dropping it: the backpressure case needs that.
    redis = await startPrivateRedis({ args: ['--client-output-buffer-limit', 'normal 0 0 0'] });
    admin = new Redis({ host: redis.host, port: redis.port, lazyConnect: true });
    await admin.connect();
    await admin.set('reset:big', Buffer.alloc(8 << 20, 1));
    proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 2000 }, log: (l) => logs.push(l) });
  });
  afterAll(async () => {
    admin?.disconnect();
    await proxy?.close();
    await redis?.stop();
  });

  async function clientNamed(name: string): Promise<boolean> {
    return ((await admin.client('LIST')) as string).includes(` name=${name} `);
  }

  it('closes its upstream connection at Redis, and leaves no connection, handle or fd behind', async () => {
    const handles0 = socketHandles();
    const fds0 = openFdCount();
    const s = await connectTo(proxy);
    let got = 0;
    s.on('data', (d: Buffer) => (got += d.length));
    s.write(setName('victim1') + incrs('reset:n', 200_000));
    await vi.waitUntil(() => got > 10_000, { timeout: 10_000, interval: 5 });
    expect(await clientNamed('victim1')).toBe(true);

    const t0 = performance.now();
    s.resetAndDestroy();
    await vi.waitUntil(async () => !(await clientNamed('victim1')), { timeout: 5000, interval: 5 });
    const goneMs = performance.now() - t0;
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
    await vi.waitUntil(() => socketHandles() === handles0, { timeout: 5000, interval: 5 });
    expect(openFdCount()).toBe(fds0);
    expect(logs.some((l) => /client ECONNRESET/.test(l))).toBe(true);
    console.log(`[figure] client reset mid-pipeline: its upstream left Redis's CLIENT LIST ${goneMs.toFixed(1)} ms later`);
  });

  it('also when it resets before its first byte reached Redis (still inside the handshake delay)', async () => {
    const slow = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 200_000 }, log: () => undefined });
    try {
      const connected0 = Number(/connected_clients:(\d+)/.exec(await admin.info('clients'))![1]);
      const handles0 = socketHandles();
      const s = await connectTo(slow);
      s.write(setName('victim2') + incrs('reset:m', 10));
      s.resetAndDestroy();
      await vi.waitUntil(() => slow.stats().connections.active === 0, { timeout: 5000, interval: 5 });
      await vi.waitUntil(() => socketHandles() === handles0, { timeout: 5000, interval: 5 });
      // Nothing was ever sent to Redis, and its connection is gone there too.
      await expect
        .poll(async () => Number(/connected_clients:(\d+)/.exec(await admin.info('clients'))![1]), { timeout: 5000, interval: 10 })
        .toBe(connected0);
      expect(await clientNamed('victim2')).toBe(false);
      expect(slow.stats().totals.commands).toBe(11); // parsed on arrival, never delivered
    } finally {
      await slow.close();
    }
  });

  it('is listed as a TCP client while its connection winds down, its address never read: not as "unix"', async () => {
    const lines: string[] = [];
    // Its close crosses 150 ms up before Redis's comes back: the connection stays listed meanwhile.
    const slow = await startSingleNodeProxy({ upstream: redis.address, link: { upUs: 150_000 }, log: (l) => lines.push(l) });
    try {
      const s = await connectTo(slow);
      await vi.waitUntil(() => slow.stats().connections.active === 1, { timeout: 5000, interval: 5 });
      s.resetAndDestroy();
      // Its socket is gone at the proxy; no one asked for the address before (read lazily).
      await vi.waitUntil(() => lines.some((l) => /client ECONNRESET/.test(l)), { timeout: 5000, interval: 5 });
      expect(slow.connections().map((c) => c.client)).toEqual(['tcp (closed)']);
    } finally {
      await slow.close();
    }
  });

  it('also while the proxy holds its replies back (a reader that stopped, then reset)', async () => {
    const handles0 = socketHandles();
    const s = await connectTo(proxy);
    s.pause();
    s.write(setName('victim3') + '*2\r\n$3\r\nGET\r\n$9\r\nreset:big\r\n'.repeat(32));
    // Redis holds the 256 MiB backlog for the proxy's upstream connection, which stopped reading.
    await vi.waitUntil(async () => / name=victim3 .* omem=[1-9]\d{7,}/.test((await admin.client('LIST')) as string), { timeout: 10_000, interval: 20 });
    s.resetAndDestroy();
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
    await vi.waitUntil(async () => !(await clientNamed('victim3')), { timeout: 5000, interval: 10 });
    await vi.waitUntil(() => socketHandles() === handles0, { timeout: 5000, interval: 5 });
  });
});

// Unix sockets have no RST: passing a reset on to one must close it, not throw (which would take
// the whole proxy down from inside a timer callback).
describe('resets where one side is a unix socket', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'redis-rtt-unix-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a TCP client resets while Redis is on a unix socket: the proxy survives and keeps serving', async () => {
    const redis = await startPrivateRedis({ transport: 'unix' });
    const lines: string[] = [];
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1000 }, log: (l) => lines.push(l) });
    try {
      for (let i = 0; i < 5; i++) {
        const s = await connectTo(proxy);
        const replies0 = proxy.stats().totals.replies;
        s.write(incrs('u:n', 20_000));
        // Mid-pipeline: Redis's replies have started coming back.
        await vi.waitUntil(() => proxy.stats().totals.replies > replies0, { timeout: 5000, interval: 1 });
        s.resetAndDestroy();
      }
      await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
      expect(lines.filter((l) => /client ECONNRESET/.test(l)).length).toBeGreaterThan(0);
      const s = await connectTo(proxy);
      expect(await pingRaw(s)).toBe('+PONG\r\n');
      s.destroy();
    } finally {
      await proxy.close();
      await redis.stop();
    }
  });

  it('Redis dies under clients on a unix listen socket: the proxy survives and closes them', async () => {
    const redis = await startPrivateRedis();
    const path = join(dir, 'proxy.sock');
    const proxy = await startSingleNodeProxy({ upstream: redis.address, listen: path, link: { rttUs: 1000 }, log: () => undefined });
    try {
      const clients = await Promise.all(Array.from({ length: 4 }, () => connectTo({ path })));
      // Read and drop the replies: a socket that reads nothing never reaches the end of its stream, so
      // once a reply had been delivered to it, its 'close' could not come (a unix socket has no reset).
      for (const c of clients) c.resume();
      const closed = clients.map((c) => new Promise<void>((r) => c.once('close', () => r())));
      clients.forEach((c, i) => c.write(incrs(`ul:${i}`, 100_000)));
      // Under load: Redis's replies have started coming back.
      await vi.waitUntil(() => proxy.stats().totals.replies > 0, { timeout: 5000, interval: 5 });
      redis.kill('SIGKILL');
      await Promise.all(closed);
      await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
      await redis.restart();
      // A client whose dial Redis refused while down (its own, set up late under load) closed the
      // listener; it listens again once its probe reaches Redis (refusal-watch.ts), as a client's
      // reconnect would find.
      const s = await vi.waitFor(() => connectTo({ path }), { timeout: 5000, interval: 20 });
      expect(await pingRaw(s)).toBe('+PONG\r\n');
      s.destroy();
    } finally {
      await proxy.close();
      await redis.stop();
    }
  });
});
