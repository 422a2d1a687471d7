/**
 * A CLIENT REPLY with the wrong number of arguments is an error Redis answers, and it changes no
 * reply mode: the tap must not take `CLIENT REPLY SKIP x` for a skip (the error and the next
 * command's reply were counted as pushes). Checked on a real redis-server through an unframed and
 * a framed proxy, with a raw socket, against a direct connection.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { passAll, rawSocket, resp } from './helpers.js';

const WAIT = { timeout: 5000, interval: 5 };

/** Sends the requests in one write and returns what came back once it ends with `until`. */
async function exchange(host: string, port: number, requests: string, until: string): Promise<string> {
  const s: net.Socket = await rawSocket(host, port);
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  const text = (): string => Buffer.concat(chunks).toString('latin1');
  try {
    s.write(requests);
    await vi.waitUntil(() => text().endsWith(until), WAIT);
    return text();
  } finally {
    s.destroy();
  }
}

describe.each(['unframed', 'framed'] as const)('CLIENT REPLY with a wrong argument count, %s proxy', (framing) => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
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

  it('is an error reply; the commands after it are answered and counted as replies', async () => {
    const requests = resp('CLIENT', 'REPLY', 'SKIP', 'x') + resp('CLIENT', 'REPLY') + resp('GET', 'k') + resp('PING');
    const direct = await exchange(redis.host!, redis.port!, requests, '+PONG\r\n');
    expect(direct.match(/^-ERR /gm)).toHaveLength(2);
    proxy.resetStats();
    expect(await exchange(proxy.host!, proxy.port!, requests, '+PONG\r\n')).toBe(direct);
    await vi.waitUntil(() => proxy.connections().length === 0, WAIT);
    const s = proxy.stats();
    expect(s.totals).toMatchObject({ commands: 4, replies: 4, pushes: 0, errorReplies: 2, roundTrips: 1 });
    expect(s.commands['PING']?.clientUs.count).toBe(1);
  });
});
