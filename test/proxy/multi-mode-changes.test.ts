/**
 * Mode changes queued inside MULTI take effect at EXEC (docs/counters.md): checked on a real
 * redis-server through an unframed proxy and a framed one (a frame stage that passes everything),
 * with a raw socket so that every byte is known, and against a direct connection to Redis: the
 * client gets exactly Redis's bytes, and /stats counts every command, reply, push and round trip.
 */
import net from 'node:net';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { passAll, rawSocket, resp } from './helpers.js';

const WAIT = { timeout: 5000, interval: 5 };

/** A raw connection that keeps everything it receives. */
class Raw {
  private readonly chunks: Buffer[] = [];
  private constructor(readonly socket: net.Socket) {
    socket.on('data', (c: Buffer) => this.chunks.push(c));
  }
  static async open(host: string, port: number): Promise<Raw> {
    return new Raw(await rawSocket(host, port));
  }
  get text(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }
  /** Sends `commands` in one write and waits until the bytes received since end with `until`. */
  async send(commands: string[][], until: string): Promise<void> {
    const before = this.text.length;
    this.socket.write(commands.map((c) => resp(...c)).join(''));
    await vi.waitUntil(() => this.text.length > before && this.text.endsWith(until), WAIT).catch(() => {
      throw new Error(`waited for ${JSON.stringify(until)}, got ${JSON.stringify(this.text)}`);
    });
  }
  close(): void {
    this.socket.destroy();
  }
}

/** HELLO's reply holds the connection id: the one part that differs between two connections. */
const sameBytes = (s: string): string => s.replace(/\$2\r\nid\r\n:\d+\r\n/g, '$2\r\nid\r\n:N\r\n');

interface Counted {
  commands: number;
  replies: number;
  pushes: number;
  roundTrips: number;
}

function counted(proxy: RedisRttProxy): Counted & { desynced: boolean; protocol: number; mode: string } {
  const t = proxy.stats().totals;
  const c = proxy.connections().at(-1)!;
  return { commands: t.commands, replies: t.replies, pushes: t.pushes, roundTrips: t.roundTrips, desynced: c.desynced, protocol: c.protocol, mode: c.mode };
}

async function stats(proxy: RedisRttProxy): Promise<Counted> {
  const body = (await (await fetch(`http://${proxy.controlAddress}/stats`)).json()) as { totals: Counted };
  const { commands, replies, pushes, roundTrips } = body.totals;
  return { commands, replies, pushes, roundTrips };
}

const settled = (proxy: RedisRttProxy): boolean => proxy.connections().every((c) => c.outstanding === 0);

type Step = { send: string[][]; until: string; publish?: [string, string] };

/**
 * Runs `steps` (each one write, waited for) on a raw connection through `proxy` and straight to
 * Redis; returns what the proxy counted, after checking both connections got the same bytes.
 */
async function session(redis: PrivateRedis, proxy: RedisRttProxy, steps: Step[], settles = true): Promise<ReturnType<typeof counted>> {
  proxy.resetStats();
  const via = await Raw.open(proxy.host!, proxy.port!);
  const direct = await Raw.open(redis.host!, redis.port!);
  const pub = new Redis({ host: redis.host, port: redis.port, lazyConnect: true });
  await pub.connect();
  try {
    for (const step of steps) {
      for (const c of [via, direct]) await c.send(step.send, step.until);
      if (step.publish !== undefined) {
        const [viaBefore, directBefore] = [via.text.length, direct.text.length];
        const [channel, message] = step.publish;
        expect(await pub.publish(channel, message)).toBe(2);
        await vi.waitUntil(() => via.text.length > viaBefore && direct.text.length > directBefore, WAIT);
      }
    }
    if (settles) await vi.waitUntil(() => settled(proxy), WAIT);
    expect(sameBytes(via.text)).toBe(sameBytes(direct.text));
    const c = counted(proxy);
    const s = await stats(proxy);
    expect(s).toEqual({ commands: c.commands, replies: c.replies, pushes: c.pushes, roundTrips: c.roundTrips });
    return c;
  } finally {
    via.close();
    direct.close();
    pub.disconnect();
  }
}

const subscribeConf = (kind: string, ch: string, n: number, p: 2 | 3): string =>
  `${p === 2 ? '*' : '>'}3\r\n$${kind.length}\r\n${kind}\r\n$${ch.length}\r\n${ch}\r\n:${n}\r\n`;

describe.each(['unframed', 'framed'] as const)('MULTI mode changes followed at EXEC, %s proxy', (framing) => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({
      upstream: redis.address,
      control: '127.0.0.1:0',
      link: { rttUs: 200 },
      compensationUs: { up: 0, down: 0 },
      ...(framing === 'framed' ? { stages: [passAll] } : {}),
    });
  });

  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it.each([2, 3] as const)('SUBSCRIBE and PSUBSCRIBE in MULTI: the confirmations past EXEC answer EXEC, RESP%s', async (p) => {
    const hello: Step[] = p === 3 ? [{ send: [['HELLO', '3']], until: '*0\r\n' }] : [];
    const c = await session(redis, proxy, [
      ...hello,
      // EXEC's array holds 2 elements (conf a, conf b); conf p* comes after it.
      { send: [['MULTI'], ['SUBSCRIBE', 'a', 'b'], ['PSUBSCRIBE', 'p*'], ['EXEC']], until: subscribeConf('psubscribe', 'p*', 3, p), publish: ['a', 'hi'] },
      { send: [['PING', 'x']], until: '$1\r\nx\r\n' },
      // Channels go in the dict's order: the last confirmation is known by its count.
      { send: [['UNSUBSCRIBE']], until: '\r\n:1\r\n' },
      { send: [['PUNSUBSCRIBE']], until: subscribeConf('punsubscribe', 'p*', 0, p) },
      { send: [['PING']], until: '+PONG\r\n' },
    ]);
    const h = p === 3 ? 1 : 0;
    // MULTI, SUBSCRIBE, PSUBSCRIBE, EXEC; PING; UNSUBSCRIBE; PUNSUBSCRIBE; PING (+ HELLO).
    expect(c).toEqual({
      commands: 8 + h,
      // +OK, 2 +QUEUED, EXEC's array and the confirmation after it; PING; 2 unsubscribes; 1; PONG.
      replies: 10 + h,
      pushes: 1,
      roundTrips: 5 + h,
      desynced: false,
      protocol: p,
      mode: 'normal',
    });
  });

  it('HELLO 2 in MULTI switches the protocol at EXEC: RESP2 confirmations after it are matched', async () => {
    const c = await session(redis, proxy, [
      { send: [['HELLO', '3']], until: '*0\r\n' },
      { send: [['MULTI'], ['HELLO', '2'], ['EXEC']], until: '$7\r\nmodules\r\n*0\r\n' },
      { send: [['SUBSCRIBE', 'a', 'b']], until: subscribeConf('subscribe', 'b', 2, 2), publish: ['b', 'yo'] },
      { send: [['UNSUBSCRIBE', 'a', 'b']], until: subscribeConf('unsubscribe', 'b', 0, 2) },
    ]);
    expect(c).toEqual({ commands: 6, replies: 1 + 3 + 2 + 2, pushes: 1, roundTrips: 4, desynced: false, protocol: 2, mode: 'normal' });
  });

  it('HELLO 3 in MULTI switches the protocol at EXEC', async () => {
    const c = await session(redis, proxy, [
      { send: [['MULTI'], ['HELLO', '3'], ['EXEC']], until: '$7\r\nmodules\r\n*0\r\n' },
      { send: [['SUBSCRIBE', 'a']], until: subscribeConf('subscribe', 'a', 1, 3), publish: ['a', 'yo'] },
      { send: [['PING']], until: '+PONG\r\n' },
    ]);
    expect(c).toMatchObject({ commands: 5, replies: 5, pushes: 1, roundTrips: 3, desynced: false, protocol: 3, mode: 'subscribed' });
  });

  it('SSUBSCRIBE and MONITOR in MULTI are refused at EXEC: nothing changes', async () => {
    const c = await session(redis, proxy, [
      { send: [['MULTI'], ['SSUBSCRIBE', 's'], ['MONITOR'], ['EXEC']], until: "DENY BLOCKING client\r\n" },
      { send: [['SET', 'k', 'v']], until: '+OK\r\n' },
    ]);
    expect(c).toEqual({ commands: 5, replies: 5, pushes: 0, roundTrips: 2, desynced: false, protocol: 2, mode: 'normal' });
  });

  it('a transaction that failed (WATCH) or was aborted (EXECABORT) changes nothing', async () => {
    const c = await session(redis, proxy, [
      { send: [['WATCH', 'w'], ['SET', 'w', '1'], ['MULTI'], ['SUBSCRIBE', 'a', 'b'], ['EXEC']], until: '*-1\r\n' },
      { send: [['MULTI'], ['SUBSCRIBE', 'a', 'b'], ['NOSUCHCOMMAND'], ['EXEC']], until: 'previous errors.\r\n' },
      { send: [['PING']], until: '+PONG\r\n' },
    ]);
    expect(c).toEqual({ commands: 10, replies: 10, pushes: 0, roundTrips: 3, desynced: false, protocol: 2, mode: 'normal' });
  });

  it('CLIENT REPLY in MULTI cannot be followed: the connection says so (desynced), bytes pass unchanged', async () => {
    const c = await session(redis, proxy, [
      { send: [['MULTI'], ['CLIENT', 'REPLY', 'OFF'], ['PING'], ['EXEC'], ['PING'], ['CLIENT', 'REPLY', 'ON'], ['PING', 'x']], until: '$1\r\nx\r\n' },
      { send: [['PING', 'y']], until: '$1\r\ny\r\n' },
    ], false);
    expect(c).toMatchObject({ commands: 8, desynced: true });
  });
});

/** A connection's counters less an earlier reading of them. */
function delta(proxy: RedisRttProxy, id: number, from: Counted): Counted {
  const c = proxy.connections().find((x) => x.id === id)!.counters;
  return {
    commands: c.commands - from.commands,
    replies: c.replies - from.replies,
    pushes: c.pushes - from.pushes,
    roundTrips: c.roundTrips - from.roundTrips,
  };
}

describe('real clients subscribing inside MULTI, through the proxy', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, control: '127.0.0.1:0', link: { rttUs: 200 }, compensationUs: { up: 0, down: 0 } });
  });

  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  /** Connects `open`, waits for its handshake to settle, and returns its connection id and counters. */
  async function connected(open: () => Promise<unknown>): Promise<{ id: number; from: Counted }> {
    const known = new Set(proxy.connections().map((c) => c.id));
    await open();
    await vi.waitUntil(() => proxy.connections().some((c) => !known.has(c.id)) && settled(proxy), WAIT);
    const conn = proxy.connections().find((c) => !known.has(c.id))!;
    return { id: conn.id, from: { ...conn.counters } };
  }

  it('ioredis (RESP2) multi().subscribe(a, b).exec(): the second confirmation answers EXEC, messages are pushes', async () => {
    const sub = new Redis({ host: proxy.host, port: proxy.port, protocol: 2, lazyConnect: true });
    const pub = createClient({ socket: { host: proxy.host, port: proxy.port }, RESP: 2 });
    try {
      await pub.connect();
      const { id, from } = await connected(() => sub.connect());
      const got: string[] = [];
      sub.on('message', (_ch: string, m: string) => got.push(m));
      await sub.multi().subscribe('a', 'b').exec();
      await vi.waitUntil(() => settled(proxy), WAIT);
      expect(proxy.connections().find((c) => c.id === id)).toMatchObject({ mode: 'subscribed', desynced: false });
      expect(await pub.publish('b', 'one')).toBe(1);
      await vi.waitUntil(() => got.length === 1, WAIT);
      await sub.unsubscribe();
      expect(await sub.ping()).toBe('PONG');
      await vi.waitUntil(() => settled(proxy), WAIT);
      // MULTI SUBSCRIBE EXEC (one write), UNSUBSCRIBE, PING; +OK +QUEUED, EXEC's array and the
      // confirmation after it, two unsubscribe confirmations, +PONG.
      expect(delta(proxy, id, from)).toEqual({ commands: 5, replies: 7, pushes: 1, roundTrips: 3 });
      expect(proxy.connections().find((c) => c.id === id)).toMatchObject({ mode: 'normal', desynced: false, outstanding: 0 });
    } finally {
      sub.disconnect();
      await pub.quit();
    }
  });

  it('node-redis (RESP2) MULTI SUBSCRIBE a EXEC: the connection is subscribed after EXEC', async () => {
    const sub = createClient({ socket: { host: proxy.host, port: proxy.port }, RESP: 2 });
    const clientErrors: string[] = [];
    // node-redis does not expect a message on a client it did not subscribe itself.
    sub.on('error', (e: Error) => clientErrors.push(e.message));
    const pub = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true });
    try {
      await pub.connect();
      const { id, from } = await connected(() => sub.connect());
      expect(await sub.multi().addCommand(['SUBSCRIBE', 'a']).exec()).toEqual([['subscribe', 'a', 1]]);
      await vi.waitUntil(() => settled(proxy), WAIT);
      expect(proxy.connections().find((c) => c.id === id)).toMatchObject({ mode: 'subscribed', desynced: false });
      expect(await pub.publish('a', 'one')).toBe(1);
      await vi.waitUntil(() => delta(proxy, id, from).pushes === 1, WAIT);
      expect(await sub.sendCommand(['UNSUBSCRIBE'])).toEqual(['unsubscribe', 'a', 0]);
      expect(await sub.ping()).toBe('PONG');
      await vi.waitUntil(() => settled(proxy), WAIT);
      expect(delta(proxy, id, from)).toEqual({ commands: 5, replies: 5, pushes: 1, roundTrips: 3 });
      expect(proxy.connections().find((c) => c.id === id)).toMatchObject({ mode: 'normal', desynced: false, outstanding: 0 });
    } finally {
      sub.destroy();
      pub.disconnect();
    }
  });
});
