/**
 * Mode changes that Redis refuses (not allowed in RESP2 pub/sub, or NOPERM) change nothing. A
 * refused MULTI opens no transaction: the commands sent after its error run at once, and a
 * SUBSCRIBE among them is answered by its confirmations, not by one +QUEUED. A refused CLIENT
 * REPLY OFF/SKIP leaves replies on: the commands after it are answered and counted. Checked on a
 * real redis-server through an unframed and a framed proxy, with a raw socket, against a direct
 * connection.
 */
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { passAll, rawSocket, resp } from './helpers.js';

const WAIT = { timeout: 5000, interval: 5 };

/** Each step is one write, sent once the bytes before it ended with the step's `until`. */
async function session(host: string, port: number, steps: [string[], string][]): Promise<string> {
  const s: net.Socket = await rawSocket(host, port);
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  const text = (): string => Buffer.concat(chunks).toString('latin1');
  try {
    for (const [command, until] of steps) {
      const before = text().length;
      s.write(resp(...command));
      await vi.waitUntil(() => text().length > before && text().endsWith(until), WAIT);
    }
    return text();
  } finally {
    s.destroy();
  }
}

describe.each(['unframed', 'framed'] as const)('refused mode changes, %s proxy', (framing) => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const admin = new Redis({ host: redis.host, port: redis.port, lazyConnect: true });
    await admin.connect();
    await admin.call('ACL', 'SETUSER', 'nomulti', 'on', 'nopass', '~*', '&*', '+@all', '-multi');
    await admin.call('ACL', 'SETUSER', 'noclient', 'on', 'nopass', '~*', '&*', '+@all', '-client');
    admin.disconnect();
    proxy = await startSingleNodeProxy({
      upstream: redis.address,
      link: { rttUs: 200 },
      compensationUs: { up: 0, down: 0 },
      ...(framing === 'framed' ? { stages: [passAll] } : {}),
    });
  });

  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it.each([
    ['in RESP2 pub/sub', [['SUBSCRIBE', 'a'], ':1\r\n']],
    ['without the permission', [['AUTH', 'nomulti', 'x'], '+OK\r\n']],
  ] as const)('%s: the commands after its error run at once', async (_, first) => {
    const steps: [string[], string][] = [
      [[...first[0]], first[1]],
      [['MULTI'], '\r\n'],
      [['SUBSCRIBE', 'b', 'c'], '$1\r\nc\r\n:' + (first[0][0] === 'SUBSCRIBE' ? '3' : '2') + '\r\n'],
      [['PING', 'x'], '$1\r\nx\r\n'],
    ];
    const direct = await session(redis.host!, redis.port!, steps);
    expect(direct).toContain('-');
    proxy.resetStats();
    const via = await session(proxy.host!, proxy.port!, steps);
    expect(via).toBe(direct);
    await vi.waitUntil(() => proxy.connections().length === 0, WAIT);
    const subscribes = first[0][0] === 'SUBSCRIBE' ? 2 : 1;
    // Replies: the first command's (SUBSCRIBE's one confirmation or AUTH's +OK), MULTI's error,
    // two confirmations, PING's.
    expect(proxy.stats().totals).toMatchObject({ commands: 4, replies: 5, pushes: 0, errorReplies: 1, roundTrips: 4 });
    expect(proxy.stats().commands['SUBSCRIBE']?.clientUs.count).toBe(subscribes);
    expect(proxy.stats().commands['PING']?.clientUs.count).toBe(1);
  });

  it.each([
    ['OFF in RESP2 pub/sub', 'OFF', [['SUBSCRIBE', 'a'], ':1\r\n']],
    ['SKIP in RESP2 pub/sub', 'SKIP', [['SUBSCRIBE', 'a'], ':1\r\n']],
    ['OFF without the permission', 'OFF', [['AUTH', 'noclient', 'x'], '+OK\r\n']],
  ] as const)('CLIENT REPLY %s: the commands after its error are answered and counted', async (_, mode, first) => {
    const pong = '$1\r\nx\r\n'; // PING x: *2 pong x in pub/sub, $1 x outside it
    const steps: [string[], string][] = [
      [[...first[0]], first[1]],
      [['CLIENT', 'REPLY', mode], '\r\n'],
      [['PING', 'x'], pong],
      [['PING', 'x'], pong],
    ];
    const direct = await session(redis.host!, redis.port!, steps);
    expect(direct).toContain('-');
    proxy.resetStats();
    const via = await session(proxy.host!, proxy.port!, steps);
    expect(via).toBe(direct);
    await vi.waitUntil(() => proxy.connections().length === 0, WAIT);
    // The refusal answers no request the proxy waited for: a push; both PINGs are replies.
    expect(proxy.stats().totals).toMatchObject({ commands: 4, replies: 3, pushes: 1, roundTrips: 3 });
    expect(proxy.stats().commands['PING']?.clientUs.count).toBe(2);
  });
});
