/**
 * Requests redis-server 7.0 refuses with a protocol error, then closing the connection, through a
 * real proxy, plain and framed (docs/counters.md, "Requests Redis refuses"): the client gets
 * Redis's bytes and its close as directly, and the counts say what happened. A bad header desyncs
 * the framer, after the replies to the requests before it. A client that has not authenticated
 * (the default user needs a password) is refused a `*` count above 10 or a `$` length above 16384
 * at the header ("-ERR Protocol error: unauthenticated multibulk length", or "bulk length"): the
 * proxy cannot tell whether a client has authenticated, so its framer reads the request as any
 * other. Real redis-server with requirepass, raw sockets.
 */
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { passAll, rawSocket, resp } from './helpers.js';

const WAIT = { timeout: 5000, interval: 5 };
const MULTIBULK_ERROR = '-ERR Protocol error: unauthenticated multibulk length\r\n';
const BULK_ERROR = '-ERR Protocol error: unauthenticated bulk length\r\n';

/** A raw client: everything it got, and whether the other side ended. */
async function open(host: string, port: number): Promise<{ s: net.Socket; got: () => string; ended: () => boolean }> {
  const s = await rawSocket(host, port);
  const chunks: Buffer[] = [];
  let ended = false;
  s.on('data', (c: Buffer) => chunks.push(c));
  s.on('end', () => (ended = true));
  s.on('error', () => undefined);
  return { s, got: () => Buffer.concat(chunks).toString('latin1'), ended: () => ended };
}

/** Writes `bytes`, then waits for Redis (or the proxy) to end the connection; returns what came. */
async function refused(host: string, port: number, bytes: string): Promise<string> {
  const c = await open(host, port);
  try {
    c.s.write(bytes);
    await vi.waitUntil(c.ended, WAIT);
    return c.got();
  } finally {
    c.s.destroy();
  }
}

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis({ args: ['--requirepass', 'pw-unauth'] });
});
afterAll(async () => {
  await redis?.stop();
});

const delOf11 = resp('DEL', ...Array.from({ length: 10 }, (_, i) => `k${i}`));
const setOf16385 = resp('SET', 'k', 'v'.repeat(16385));

describe.each(['unframed', 'framed'] as const)('requests Redis refuses, %s proxy', (framing) => {
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    proxy = await startSingleNodeProxy({
      upstream: redis.address,
      link: { rttUs: 0 },
      compensationUs: { up: 0, down: 0 },
      ...(framing === 'framed' ? { stages: [passAll] } : {}),
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  async function settled(): Promise<ReturnType<RedisRttProxy['stats']>> {
    await vi.waitUntil(() => proxy.connections().length === 0, WAIT);
    return proxy.stats();
  }

  it('a bad bulk length behind two requests: Redis answers them, then refuses it; their replies count and are timed', async () => {
    const bytes = resp('AUTH', 'pw-unauth') + resp('PING') + '*1\r\n$-3\r\n';
    const want = '+OK\r\n+PONG\r\n-ERR Protocol error: invalid bulk length\r\n';
    expect(await refused(redis.host!, redis.port!, bytes)).toBe(want);
    proxy.resetStats();
    expect(await refused(proxy.host!, proxy.port!, bytes)).toBe(want);
    const stats = await settled();
    // The error answers no request: it ends the correlation, uncounted. Redis writes it with the
    // two replies, so they are delivered after it was read: still timed.
    expect(stats.totals).toMatchObject({ commands: 2, replies: 2, pushes: 0, errorReplies: 0, unparsedBytes: 9 });
    expect(stats.commands['PING']?.clientUs.count).toBe(1);
    expect(stats.commands['AUTH']?.serverUs.count).toBe(1);
  });

  it('a whole request of 11 arguments: Redis refuses it at the header, and the error is its reply', async () => {
    expect(await refused(redis.host!, redis.port!, delOf11)).toBe(MULTIBULK_ERROR);
    proxy.resetStats();
    expect(await refused(proxy.host!, proxy.port!, delOf11)).toBe(MULTIBULK_ERROR);
    const stats = await settled();
    expect(stats.totals).toMatchObject({ commands: 1, replies: 1, pushes: 0, errorReplies: 1, errorsByPrefix: { ERR: 1 }, unparsedBytes: 0 });
    expect(stats.commands['DEL']).toMatchObject({ count: 1, errors: 1 });
  });

  // (A request over 16 KiB is left out: Redis reads 16 KiB, refuses and closes with bytes unread,
  // so its close is a reset, which may discard the error before the client reads it: a race of
  // TCP's, the same directly as through the proxy.)
  const headers: [string, string, string][] = [['*11\r\n$3\r\nDEL\r\n', delOf11, MULTIBULK_ERROR]];
  if (framing === 'unframed') headers.push(['*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$16385\r\n', setOf16385, BULK_ERROR]);
  it.each(headers)('a header alone %j: unframed the error answers no request (a push), framed it waits for the whole request', async (header, whole, error) => {
    expect(await refused(redis.host!, redis.port!, header)).toBe(error);
    proxy.resetStats();
    const c = await open(proxy.host!, proxy.port!);
    try {
      c.s.write(header);
      if (framing === 'framed') {
        // The frame chain hands on whole requests only: Redis gets the header with the rest.
        await vi.waitUntil(() => proxy.connections()[0]?.counters.bytesUp === header.length, WAIT);
        c.s.write(whole.slice(header.length));
      }
      await vi.waitUntil(c.ended, WAIT);
      expect(c.got()).toBe(error);
    } finally {
      c.s.destroy();
    }
    const { totals } = await settled();
    if (framing === 'framed') expect(totals).toMatchObject({ commands: 1, replies: 1, pushes: 0, errorReplies: 1 });
    else expect(totals).toMatchObject({ commands: 0, replies: 0, pushes: 1, errorReplies: 0, roundTrips: 0 });
  });

  it('after AUTH the limits are gone: a request of 11 arguments runs', async () => {
    proxy.resetStats();
    const c = await open(proxy.host!, proxy.port!);
    try {
      c.s.write(resp('AUTH', 'pw-unauth') + delOf11);
      await vi.waitUntil(() => c.got() === '+OK\r\n:0\r\n', WAIT);
    } finally {
      c.s.destroy();
    }
    expect((await settled()).totals).toMatchObject({ commands: 2, replies: 2, pushes: 0, errorReplies: 0 });
  });
});
