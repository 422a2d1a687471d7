/**
 * Redis 7 lets a MONITOR connection subscribe, and a subscribed RESP3 connection monitor. Its
 * messages and confirmations are not monitor lines: a message published while the client's PING
 * is still on the up link is a push, not the PING's reply, and an argument-less UNSUBSCRIBE gets
 * all its confirmations as replies. A MONITOR sent on a monitoring connection gets no reply at
 * all. Checked on a real redis-server through an unframed and a framed proxy, with a raw socket.
 */
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { passAll, rawSocket, resp } from './helpers.js';

const WAIT = { timeout: 5000, interval: 5 };
/** Long enough that the publish below lands at Redis well before the PING does. */
const UP_US = 150_000;

async function sendUntil(s: net.Socket, received: () => string, command: string[], until: string): Promise<void> {
  const before = received().length;
  s.write(resp(...command));
  await vi.waitUntil(() => received().length > before && received().includes(until, before), WAIT);
}

describe.each(['unframed', 'framed'] as const)('a subscribed monitor, %s proxy', (framing) => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  let pub: Redis;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({
      upstream: redis.address,
      link: { upUs: UP_US, downUs: 0 },
      compensationUs: { up: 0, down: 0 },
      handshake: false,
      ...(framing === 'framed' ? { stages: [passAll] } : {}),
    });
    pub = new Redis({ host: redis.host, port: redis.port, lazyConnect: true });
    await pub.connect();
  });

  afterAll(async () => {
    pub?.disconnect();
    await proxy?.close();
    await redis?.stop();
  });

  it.each([2, 3] as const)('a message is a push, not the reply of the PING in flight, RESP%s', async (p) => {
    const s = await rawSocket(proxy.host!, proxy.port!);
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    const received = (): string => Buffer.concat(chunks).toString('latin1');
    try {
      if (p === 3) await sendUntil(s, received, ['HELLO', '3'], '*0\r\n');
      await sendUntil(s, received, ['MONITOR'], '+OK\r\n');
      await sendUntil(s, received, ['SUBSCRIBE', 'a', 'b'], '$1\r\nb\r\n:2\r\n');
      proxy.resetStats();

      const before = received().length;
      s.write(resp('PING'));
      await vi.waitUntil(() => proxy.connections()[0]?.outstanding === 1, WAIT);
      expect(await pub.publish('a', 'hi')).toBe(1);
      const pong = p === 3 ? '+PONG\r\n' : '$4\r\npong\r\n$0\r\n\r\n';
      await vi.waitUntil(() => received().includes(pong, before), WAIT);
      expect(received().indexOf('$2\r\nhi\r\n', before)).toBeLessThan(received().indexOf(pong, before));
      await vi.waitUntil(() => proxy.connections()[0]?.outstanding === 0, WAIT);
      // The PING's round trip is its own: the up delay at least, not the message's arrival.
      expect(proxy.stats().commands['PING']?.clientUs.max).toBeGreaterThanOrEqual(UP_US);

      await sendUntil(s, received, ['UNSUBSCRIBE'], ':0\r\n');
      await vi.waitUntil(() => proxy.connections()[0]?.outstanding === 0, WAIT);
      const c = proxy.connections()[0]!;
      expect(c.mode).toBe('monitor');
      expect(c.desynced).toBe(false);
      // PING, UNSUBSCRIBE (two confirmations); pushes: the message and the monitor lines of
      // PUBLISH and PING (UNSUBSCRIBE's may still be on its way).
      expect(c.counters).toMatchObject({ commands: 2, replies: 3, roundTrips: 2 });
      await vi.waitUntil(() => received().includes('"UNSUBSCRIBE"\r\n', before), WAIT);
      await vi.waitUntil(() => proxy.connections()[0]?.counters.pushes === 4, WAIT);
    } finally {
      s.destroy();
      await vi.waitUntil(() => proxy.connections().length === 0, WAIT);
    }
  });

  it('a refused MONITOR sent again is answered again (NOPERM)', async () => {
    await pub.call('ACL', 'SETUSER', 'nomonitor', 'on', 'nopass', '~*', '&*', '+@all', '-monitor');
    const s = await rawSocket(proxy.host!, proxy.port!);
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    const received = (): string => Buffer.concat(chunks).toString('latin1');
    try {
      await sendUntil(s, received, ['AUTH', 'nomonitor', 'x'], '+OK\r\n');
      proxy.resetStats();
      await sendUntil(s, received, ['MONITOR'], '\r\n');
      await vi.waitUntil(() => proxy.connections()[0]?.outstanding === 0, WAIT);
      await sendUntil(s, received, ['MONITOR'], '\r\n');
      await vi.waitUntil(() => proxy.connections()[0]?.outstanding === 0, WAIT);
      await sendUntil(s, received, ['PING'], '+PONG\r\n');
      await vi.waitUntil(() => proxy.connections()[0]?.outstanding === 0, WAIT);
      expect(received().match(/-NOPERM/g)).toHaveLength(2);
      const c = proxy.connections()[0]!;
      expect(c.mode).toBe('normal');
      expect(c.counters).toMatchObject({ commands: 3, replies: 3, pushes: 0, errorReplies: 2, roundTrips: 3 });
      expect(proxy.stats().commands['MONITOR']?.clientUs.count).toBe(2);
    } finally {
      s.destroy();
      await vi.waitUntil(() => proxy.connections().length === 0, WAIT);
    }
  });

  it('a second MONITOR gets no reply from Redis, and none is waited for', async () => {
    const s = await rawSocket(proxy.host!, proxy.port!);
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    const received = (): string => Buffer.concat(chunks).toString('latin1');
    try {
      await sendUntil(s, received, ['MONITOR'], '+OK\r\n');
      proxy.resetStats();
      s.write(resp('MONITOR') + resp('PING'));
      await vi.waitUntil(() => received().endsWith('"PING"\r\n'), WAIT);
      expect(received()).toMatch(/^\+OK\r\n\+PONG\r\n\+\d+\.\d+ \[0 [^\]]+\] "PING"\r\n$/);
      await vi.waitUntil(() => proxy.connections()[0]?.outstanding === 0, WAIT);
      await sendUntil(s, received, ['RESET'], '+RESET\r\n');
      await vi.waitUntil(() => proxy.connections()[0]?.outstanding === 0, WAIT);
      const c = proxy.connections()[0]!;
      expect(c.mode).toBe('normal');
      expect(c.counters).toMatchObject({ commands: 3, replies: 2, pushes: 1, roundTrips: 2 }); // pushes: PING's line
      // The PING's round trip is its own (the up delay), not cut short by a reply it never had.
      expect(proxy.stats().commands['PING']?.clientUs.max).toBeGreaterThanOrEqual(UP_US);
    } finally {
      s.destroy();
      await vi.waitUntil(() => proxy.connections().length === 0, WAIT);
    }
  });
});
