/**
 * End to end, as a client on a raw socket sees it: scripted sessions of every kind the tap follows
 * (MULTI/EXEC, CLIENT REPLY, pub/sub in RESP2 and RESP3, MONITOR, tracking, blocking commands,
 * WAIT, QUIT/RESET, HELLO switching, a long pipeline) through a delayed proxy, plain and framed,
 * to a real redis-server behind a recording pass-through. Every byte the client wrote reaches
 * Redis, every byte Redis wrote reaches the client, in order; and the connection's counters are
 * what the script sent and what Redis answered.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import type { ConnectionInfo } from '../../src/tap/counter-types.js';
import { parseAll } from '../resp/reference-parser.js';
import { passAll, rawSocket, resp } from './helpers.js';

const WAIT = { timeout: 10_000, interval: 5 };

interface Recorded {
  clientPort: number;
  up: Buffer[];
  down: Buffer[];
}

/** A pass-through that keeps both directions of every connection, byte for byte. */
async function recorder(to: PrivateRedis): Promise<{ port: number; sessions: Recorded[]; close: () => Promise<void> }> {
  const sessions: Recorded[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const rec: Recorded = { clientPort: client.remotePort!, up: [], down: [] };
    sessions.push(rec);
    const upstream = net.connect({ host: to.host!, port: to.port! });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => (client.destroy(), upstream.destroy()));
    }
    client.on('data', (d: Buffer) => (rec.up.push(d), upstream.write(d)));
    upstream.on('data', (d: Buffer) => (rec.down.push(d), client.write(d)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    sessions,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** A raw client: what it wrote, what it got. */
class Raw {
  sent: Buffer[] = [];
  got = Buffer.alloc(0);
  /** The other side ended (Redis closed after QUIT). */
  closed = false;
  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => (this.got = Buffer.concat([this.got, d])));
    // (rawSocket allows half-open sockets: Redis's end is the client's 'end', not 'close')
    socket.on('end', () => (this.closed = true));
  }

  static async open(host: string, port: number): Promise<Raw> {
    return new Raw(await rawSocket(host, port));
  }

  /** Writes `bytes` in one write and waits until `frames` more top-level values came back. */
  async send(bytes: string | Buffer, frames: number): Promise<void> {
    const want = parseAll(this.got).length + frames;
    const b = Buffer.from(bytes);
    this.sent.push(b);
    this.socket.write(b);
    await this.frames(want);
  }

  async frames(n: number): Promise<void> {
    await vi.waitUntil(() => parseAll(this.got).length >= n, WAIT);
  }

  get count(): number {
    return parseAll(this.got).length;
  }
}

/** Talks to Redis directly (publishes, side effects), never through the proxy. */
async function direct(redis: PrivateRedis, ...commands: string[][]): Promise<void> {
  const c = await Raw.open(redis.host!, redis.port!);
  await c.send(commands.map((a) => resp(...a)).join(''), commands.length);
  c.socket.destroy();
}

describe.each([
  ['a plain proxy', false],
  ['a framed proxy', true],
])('byte-exact sessions through %s', (_name, framed) => {
  let redis: PrivateRedis;
  let rec: Awaited<ReturnType<typeof recorder>>;
  let proxy: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    rec = await recorder(redis);
    proxy = await startSingleNodeProxy({
      upstream: `127.0.0.1:${rec.port}`,
      link: { rttUs: 20_000 },
      compensationUs: { up: 0, down: 0 },
      ...(framed ? { stages: [passAll] } : {}),
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await rec?.close();
    await redis?.stop();
  });

  async function open(): Promise<Raw> {
    const before = new Set(proxy.connections().map((c) => c.id));
    const raw = await Raw.open(proxy.host!, proxy.port!);
    await vi.waitUntil(() => proxy.connections().some((c) => !before.has(c.id) && c.upstreamLocalPort !== undefined), WAIT);
    ids.set(raw, proxy.connections().find((c) => !before.has(c.id))!.id);
    return raw;
  }
  const ids = new Map<Raw, number>();

  function info(raw: Raw): ConnectionInfo {
    return proxy.connections().find((c) => c.id === ids.get(raw))!;
  }

  /** Waits for the session to settle, then checks bytes both ways and the counters. */
  async function check(raw: Raw, want: { commands: number; replies: number; pushes: number; roundTrips?: number }): Promise<void> {
    const up = Buffer.concat(raw.sent);
    const session = (): Recorded | undefined => rec.sessions.find((s) => s.clientPort === info(raw).upstreamLocalPort);
    await vi.waitUntil(() => {
      const s = session();
      return s !== undefined && Buffer.concat(s.up).length >= up.length && Buffer.concat(s.down).length <= raw.got.length;
    }, WAIT);
    await vi.waitUntil(() => info(raw).outstanding === 0, WAIT);
    const s = session()!;
    expect(Buffer.concat(s.up).equals(up), 'bytes up').toBe(true);
    expect(Buffer.concat(s.down).equals(raw.got), 'bytes down').toBe(true);
    const c = info(raw);
    expect(c.desynced).toBe(false);
    expect(c.counters.unparsedBytes).toBe(0);
    expect({ commands: c.counters.commands, replies: c.counters.replies, pushes: c.counters.pushes, roundTrips: c.counters.roundTrips })
      .toEqual({ ...want, roundTrips: want.roundTrips ?? c.counters.roundTrips });
    // Every frame Redis sent is a reply or a push.
    expect(c.counters.replies + c.counters.pushes).toBe(raw.count);
  }

  it('MULTI/EXEC pipelined, and an EXECABORT', async () => {
    const c = await open();
    await c.send(resp('MULTI') + resp('SET', 'a', '1') + resp('INCR', 'a') + resp('EXEC'), 4);
    await c.send(resp('MULTI') + resp('NOSUCH') + resp('EXEC'), 3);
    await check(c, { commands: 7, replies: 7, pushes: 0, roundTrips: 2 });
    c.socket.destroy();
  });

  it('CLIENT REPLY OFF, SKIP and ON', async () => {
    const c = await open();
    await c.send(resp('CLIENT', 'REPLY', 'OFF') + resp('SET', 'k', '1') + resp('CLIENT', 'REPLY', 'ON'), 1);
    await c.send(resp('CLIENT', 'REPLY', 'SKIP') + resp('SET', 'k', '2') + resp('PING'), 1);
    await check(c, { commands: 6, replies: 2, pushes: 0, roundTrips: 2 });
    c.socket.destroy();
  });

  it('a negative count of 19 digits is an empty request, as *-1 is: it ends a CLIENT REPLY SKIP', async () => {
    const c = await open();
    // string2ll reads any count down to LLONG_MIN; Redis resets the client after it: PING is answered.
    await c.send(resp('CLIENT', 'REPLY', 'SKIP') + '*-9223372036854775808\r\n*-1234567890123456789\r\n' + resp('PING'), 1);
    expect(c.got.toString()).toBe('+PONG\r\n');
    await check(c, { commands: 2, replies: 1, pushes: 0, roundTrips: 1 });
    c.socket.destroy();
  });

  it('a refused CLIENT REPLY OFF with a command pipelined behind it: replies are on again after its error', async () => {
    const c = await open();
    await c.send(resp('SUBSCRIBE', 'a'), 1);
    // RESP2 pub/sub refuses CLIENT REPLY: an error, then PING's pong, both answered.
    await c.send(resp('CLIENT', 'REPLY', 'OFF') + resp('PING'), 2);
    await c.send(resp('PING'), 1);
    await c.send(resp('PING'), 1);
    // The PING sent behind it before the error came was taken as silenced (docs/counters.md): its
    // pong and the error count as pushes. The two sent after the error are answered as ever.
    await check(c, { commands: 5, replies: 3, pushes: 2, roundTrips: 3 });
    c.socket.destroy();
  });

  it('RESP2 pub/sub: SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE, messages, PING, unsubscribes', async () => {
    const c = await open();
    await c.send(resp('SUBSCRIBE', 'a', 'b'), 2);
    await c.send(resp('PSUBSCRIBE', 'p*') + resp('SSUBSCRIBE', 's') + resp('PING'), 3);
    await direct(redis, ['PUBLISH', 'a', 'm1'], ['PUBLISH', 'pa', 'm2'], ['SPUBLISH', 's', 'm3']);
    await c.frames(8);
    await c.send(resp('UNSUBSCRIBE') + resp('PUNSUBSCRIBE') + resp('SUNSUBSCRIBE'), 4);
    await c.send(resp('GET', 'k'), 1);
    await check(c, { commands: 8, replies: 10, pushes: 3 });
    c.socket.destroy();
  });

  it('RESP3 pub/sub: pushes interleaved with replies to ordinary commands', async () => {
    const c = await open();
    await c.send(resp('HELLO', '3') + resp('SUBSCRIBE', 'a') + resp('SSUBSCRIBE', 's'), 3);
    const pipeline = Array.from({ length: 50 }, (_, i) => resp('SET', `r3:${i}`, 'v') + resp('GET', `r3:${i}`)).join('');
    c.socket.write(pipeline);
    c.sent.push(Buffer.from(pipeline));
    await direct(redis, ['PUBLISH', 'a', 'm1'], ['SPUBLISH', 's', 'm2'], ['PUBLISH', 'a', 'm3']);
    await c.frames(3 + 100 + 3);
    await c.send(resp('UNSUBSCRIBE', 'a') + resp('SUNSUBSCRIBE', 's') + resp('PING'), 3);
    await check(c, { commands: 3 + 100 + 3, replies: 3 + 100 + 3, pushes: 3 });
    c.socket.destroy();
  });

  it('MONITOR, then RESET', async () => {
    const c = await open();
    await c.send(resp('MONITOR'), 1);
    await direct(redis, ['SET', 'm', '1'], ['GET', 'm']);
    await c.frames(3);
    await c.send(resp('RESET'), 1);
    const lines = c.count - 2;
    expect(lines).toBeGreaterThanOrEqual(2);
    await check(c, { commands: 2, replies: 2, pushes: lines });
    c.socket.destroy();
  });

  it('CLIENT TRACKING with REDIRECT (RESP2) and in RESP3 (invalidation pushes)', async () => {
    const target = await open();
    await target.send(resp('CLIENT', 'ID'), 1);
    const id = /:(\d+)/.exec(target.got.toString())![1]!;
    await target.send(resp('SUBSCRIBE', '__redis__:invalidate'), 1);
    const tracked = await open();
    await tracked.send(resp('CLIENT', 'TRACKING', 'on', 'REDIRECT', id) + resp('GET', 't1'), 2);
    const three = await open();
    await three.send(resp('HELLO', '3') + resp('CLIENT', 'TRACKING', 'on') + resp('GET', 't3'), 3);
    await direct(redis, ['SET', 't1', 'x'], ['SET', 't3', 'y']);
    await target.frames(3);
    await three.frames(4);
    await three.send(resp('PING'), 1);
    await check(target, { commands: 2, replies: 2, pushes: 1 });
    await check(tracked, { commands: 2, replies: 2, pushes: 0 });
    await check(three, { commands: 4, replies: 4, pushes: 1 });
    for (const r of [target, tracked, three]) r.socket.destroy();
  });

  it('BLPOP that times out, BLPOP served by a push, WAIT', async () => {
    const c = await open();
    await c.send(resp('BLPOP', 'none', '0.05'), 1);
    c.socket.write(resp('BLPOP', 'bl', '5'));
    c.sent.push(Buffer.from(resp('BLPOP', 'bl', '5')));
    await vi.waitUntil(() => info(c).outstanding === 1, WAIT);
    await direct(redis, ['RPUSH', 'bl', 'x']);
    await c.frames(2);
    await c.send(resp('WAIT', '0', '0'), 1);
    await check(c, { commands: 3, replies: 3, pushes: 0, roundTrips: 3 });
    c.socket.destroy();
  });

  it('HELLO 3 / 2 / 3 pipelined with commands whose reply types change', async () => {
    const c = await open();
    await direct(redis, ['HSET', 'h', 'f', 'v', 'g', 'w']);
    await c.send(
      resp('HELLO', '3') + resp('HGETALL', 'h') + resp('HELLO', '2') + resp('HGETALL', 'h') + resp('HELLO', '3') + resp('PING'),
      6,
    );
    await check(c, { commands: 6, replies: 6, pushes: 0, roundTrips: 1 });
    expect(info(c).protocol).toBe(3);
    c.socket.destroy();
  });

  it('RESP3 subscribed, then RESET back to RESP2, then QUIT', async () => {
    const c = await open();
    await c.send(resp('HELLO', '3') + resp('SUBSCRIBE', 'q'), 2);
    await c.send(resp('RESET') + resp('HGETALL', 'h'), 2);
    expect(info(c)).toMatchObject({ protocol: 2, mode: 'normal' });
    await c.send(resp('PING') + resp('QUIT'), 2);
    await vi.waitUntil(() => c.closed, WAIT);
    await check(c, { commands: 6, replies: 6, pushes: 0 });
    c.socket.destroy(); // half-open: Redis's end after QUIT does not end our side
  });

  it('a pipeline of 5000 commands in one write, and inline commands', async () => {
    const c = await open();
    const cmds = Array.from({ length: 5000 }, (_, i) =>
      i % 3 === 0 ? resp('SET', `p:${i}`, 'x'.repeat(i % 200)) : i % 3 === 1 ? resp('GET', `p:${i - 1}`) : 'PING\r\n');
    await c.send(cmds.join(''), 5000);
    await c.send('ECHO "a b"\r\n\r\nGET p:0\n', 2);
    await check(c, { commands: 5002, replies: 5002, pushes: 0, roundTrips: 2 });
    c.socket.destroy();
  });
});

