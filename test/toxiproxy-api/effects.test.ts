import { execFile } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { Toxiproxy, type ICreateToxicBody, type Proxy } from 'toxiproxy-node-client';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';
import { collect, rawSocket } from '../proxy/helpers.js';

/**
 * Each toxic's effect as a real client sees it, the toxics added and removed by
 * toxiproxy-node-client through `redis-rtt server`.
 */
const run = promisify(execFile);
/** The PING has reached the timeout toxic this long after it was written. */
const PING_IN_TOXIC_MS = 30;
/** Nothing more comes back in this long: a dropped reply never will, and neither will the ones behind it. */
const NOTHING_COMES_MS = 50;
/** The failover windows, and the margin after one before a client tries again. */
const LOADING_MS = 150;
const REFUSE_MS = 300;
const AFTER_WINDOW_MS = 10;
let redis: PrivateRedis;
let server: ToxiproxyServer;
let tp: Toxiproxy;
let n = 0;

beforeAll(async () => {
  redis = await startPrivateRedis();
  server = await startToxiproxyServer({ api: '127.0.0.1:0', log: () => undefined, seed: 42 });
  tp = new Toxiproxy(`http://${server.api}`);
  const r = new Redis({ host: redis.host, port: redis.port });
  await r.set('big', 'x'.repeat(10_000));
  await r.set('k', 'v');
  await r.quit();
});
afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

async function freshProxy(): Promise<{ proxy: Proxy; host: string; port: number }> {
  const proxy = await tp.createProxy({ name: `p${n++}`, listen: '127.0.0.1:0', upstream: redis.address });
  const [host, port] = [proxy.listen.slice(0, proxy.listen.lastIndexOf(':')), Number(proxy.listen.slice(proxy.listen.lastIndexOf(':') + 1))];
  return { proxy, host, port };
}

const toxic = (body: Record<string, unknown>) => body as unknown as ICreateToxicBody<unknown>;
const ioredis = (port: number, extra: object = {}) =>
  new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...extra });

describe('byte toxics through redis-rtt server', () => {
  it('latency: a fractional-ms toxic adds to each direction it is on', async () => {
    const { proxy, port } = await freshProxy();
    const c = ioredis(port);
    await c.connect();
    const rtt = async (): Promise<number> => {
      const t0 = process.hrtime.bigint();
      await c.ping();
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    for (let i = 0; i < 5; i++) await rtt();
    const before: number[] = [];
    for (let i = 0; i < 40; i++) before.push(await rtt());
    await proxy.addToxic(toxic({ type: 'latency', stream: 'upstream', attributes: { latency: 2.5 } }));
    await proxy.addToxic(toxic({ type: 'latency', stream: 'downstream', attributes: { latency: 2.5 } }));
    const rtts: number[] = [];
    for (let i = 0; i < 40; i++) rtts.push(await rtt());
    // Never faster than the 5 ms added; the fastest of 40 with the toxic within 2 ms of the fastest
    // of 40 without plus 5 ms (medians measure the machine's load as much as the toxic).
    expect(Math.min(...rtts)).toBeGreaterThanOrEqual(5);
    expect(Math.min(...rtts) - Math.min(...before)).toBeLessThan(5 + 2);
    c.disconnect();
    await proxy.remove();
  });

  it('timeout: the client times out (nothing comes back)', async () => {
    const { proxy, port } = await freshProxy();
    const c = ioredis(port, { commandTimeout: 150 });
    c.on('error', () => undefined);
    await c.connect();
    await proxy.addToxic(toxic({ type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } }));
    await expect(c.get('k')).rejects.toThrow(/timed out/i);
    c.disconnect();
    await proxy.remove();
  });

  it('timeout: closes the connection after `timeout` ms', async () => {
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'timeout', stream: 'upstream', attributes: { timeout: 100 } }));
    // The toxic's clock starts when the proxy accepts: start ours before connecting.
    const t0 = Date.now();
    const s = await rawSocket('127.0.0.1', port);
    s.write('PING\r\n');
    const got = await collect(s);
    expect(got.length).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(99);
    s.destroy(); // half-open (allowHalfOpen): our side stays open after the proxy's FIN
    await proxy.remove();
  });

  it('timeout: removing the toxic closes the connection, as in toxiproxy', async () => {
    const { proxy, port } = await freshProxy();
    const t = await proxy.addToxic(toxic({ type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } }));
    const s = await rawSocket('127.0.0.1', port);
    const got = collect(s);
    s.write('PING\r\n');
    await sleep(PING_IN_TOXIC_MS);
    await t.remove();
    expect((await got).length).toBe(0);
    s.destroy();
    await proxy.remove();
  });

  it('timeout: a client that keeps sending keeps the connection open; it closes `timeout` ms after the last chunk', async () => {
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'timeout', stream: 'upstream', attributes: { timeout: 300 } }));
    const s = await rawSocket('127.0.0.1', port);
    let closedAt = 0;
    const got = collect(s).then((b) => ((closedAt = Date.now()), b));
    let lastAt = 0;
    for (let i = 0; i < 6; i++) {
      s.write('PING\r\n');
      lastAt = Date.now();
      await sleep(75);
    }
    expect(closedAt).toBe(0); // 450 ms after the first PING: toxiproxy's wait starts again at each chunk
    expect((await got).length).toBe(0);
    expect(closedAt - lastAt).toBeGreaterThanOrEqual(299);
    s.destroy();
    await proxy.remove();
  });

  it('an update reaches open connections as toxiproxy restarts the toxic: toxicity rolled again, 0 -> 1 -> 0', async () => {
    const { proxy, port } = await freshProxy();
    const c = ioredis(port);
    await c.connect();
    const rtt = async (): Promise<number> => {
      const t0 = Date.now();
      await c.ping();
      return Date.now() - t0;
    };
    const t = await proxy.addToxic(toxic({ type: 'latency', toxicity: 0, attributes: { latency: 300 } }));
    expect(await rtt()).toBeLessThan(250);
    await t.update({ toxicity: 1, attributes: { latency: 300 } } as never);
    expect(await rtt()).toBeGreaterThanOrEqual(299);
    const slow = c.ping();
    await sleep(20);
    const t0 = Date.now();
    await t.update({ toxicity: 0, attributes: { latency: 300 } } as never);
    await slow; // held by the toxic, let go at the update
    expect(Date.now() - t0).toBeLessThan(250);
    expect(await rtt()).toBeLessThan(250);
    c.disconnect();
    await proxy.remove();
  });

  it('reset_peer: ECONNRESET', async () => {
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'reset_peer', stream: 'upstream', attributes: { timeout: 20 } }));
    const s = await rawSocket('127.0.0.1', port);
    const err = new Promise<NodeJS.ErrnoException>((resolve) => s.once('error', resolve));
    s.write('PING\r\n');
    expect((await err).code).toBe('ECONNRESET');
    await proxy.remove();
  });

  it.each(['downstream', 'upstream'])('slow_close %s: the client closes first, and the FIN it gets back is held `delay` ms', async (stream) => {
    // Client FIN -> Redis closes -> Redis's FIN comes back; the toxic holds one of the two.
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'slow_close', stream, attributes: { delay: 300 } }));
    const s = await rawSocket('127.0.0.1', port);
    const got = collect(s);
    const t0 = performance.now();
    s.end('PING\r\n');
    expect((await got).toString()).toBe('+PONG\r\n');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(300);
    await proxy.remove();
  });

  it('limit_data: the client gets exactly `bytes` bytes, then the connection closes', async () => {
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'limit_data', attributes: { bytes: 1234 } }));
    const s = await rawSocket('127.0.0.1', port);
    const got = collect(s);
    s.write('GET big\r\n');
    const bytes = await got;
    expect(bytes.length).toBe(1234);
    expect(bytes.subarray(0, 8).toString()).toBe('$10000\r\n');
    s.destroy();
    await proxy.remove();
  });

  it("bandwidth rate 0 each way cuts the connection, as Testcontainers' setConnectionCut does it, until both are removed", async () => {
    const { proxy, port } = await freshProxy();
    const c = ioredis(port, { commandTimeout: 150 });
    await c.connect();
    await proxy.addToxic(toxic({ type: 'bandwidth', name: 'CUT_CONNECTION_DOWNSTREAM', stream: 'downstream', attributes: { rate: 0 } }));
    await proxy.addToxic(toxic({ type: 'bandwidth', name: 'CUT_CONNECTION_UPSTREAM', stream: 'upstream', attributes: { rate: 0 } }));
    // Rate 0 let everything through: the GET answered as if nothing was cut.
    await expect(c.get('k')).rejects.toThrow(/timed out/);
    for (const name of ['CUT_CONNECTION_DOWNSTREAM', 'CUT_CONNECTION_UPSTREAM']) await (await proxy.getToxic(name)).remove();
    expect(await c.get('k')).toBe('v');
    c.disconnect();
    await proxy.remove();
  });

  it('down (enabled: false): connections refused, and back when enabled', async () => {
    const { proxy, port } = await freshProxy();
    const before = ioredis(port);
    await before.connect();
    const closed = new Promise<void>((r) => before.once('end', () => r()));
    const off = await proxy.update({ enabled: false, listen: proxy.listen, upstream: proxy.upstream });
    await closed; // the live connection is closed too
    const refused = await new Promise<string | undefined>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      s.once('connect', () => resolve(undefined));
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code));
    });
    expect(refused).toBe('ECONNREFUSED');
    await off.update({ enabled: true, listen: proxy.listen, upstream: proxy.upstream });
    const after = ioredis(port);
    await after.connect();
    expect(await after.get('k')).toBe('v');
    after.disconnect();
    await proxy.remove();
  });

  it('down (enabled: false) with 1000 replies held by a latency toxic: closed at once, its stats count none of them', async () => {
    const { proxy, port } = await freshProxy();
    const c = ioredis(port, { enableReadyCheck: false });
    c.on('error', () => undefined);
    await c.connect();
    await c.ping(); // the client's own handshake answered first
    await proxy.addToxic(toxic({ type: 'latency', name: 'slow', stream: 'downstream', attributes: { latency: 200, jitter: 0 } }));
    type Totals = { totals: { replies: number; bytesDown: number } };
    const stats = async (): Promise<Totals['totals']> => ((await (await fetch(`http://${server.api}/proxies/${proxy.name}/stats`)).json()) as Totals).totals;
    const before = (await stats()).replies;
    const pipeline = c.pipeline();
    for (let i = 0; i < 1000; i++) pipeline.get('k');
    const done = pipeline.exec().then(
      (r) => r?.filter(([err]) => err === null).length ?? 0,
      () => 0,
    );
    // Counted as they came from Redis, before the toxic's delay.
    await vi.waitFor(async () => expect((await stats()).replies).toBe(before + 1000), { timeout: 5000, interval: 10 });
    await proxy.update({ enabled: false, listen: proxy.listen, upstream: proxy.upstream });
    expect(await done).toBe(0);
    expect(await stats()).toMatchObject({ replies: before, bytesDown: c.stream.bytesRead });
    c.disconnect();
    await proxy.remove();
  });
});

describe('Redis-aware toxics through redis-rtt server', () => {
  it('redis_error in a pipeline: only the matching replies are errors, in order', async () => {
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'redis_error', attributes: { commands: ['GET'], keys: 'k*', error: 'LOADING Redis is loading' } }));
    const c = ioredis(port);
    await c.connect();
    const res = (await c.pipeline().set('k1', 'a').get('k1').get('other').incr('n').get('k').echo('e').exec())!;
    expect(res[0]).toEqual([null, 'OK']);
    expect(String(res[1]![0])).toMatch(/^ReplyError: LOADING Redis is loading/);
    expect(res[2]).toEqual([null, null]);
    expect(res[3]![0]).toBeNull();
    expect(String(res[4]![0])).toMatch(/LOADING/);
    expect(res[5]).toEqual([null, 'e']);
    c.disconnect();
    await proxy.remove();
  });

  it('LOADING on GET: ioredis with reconnectOnError retries until the toxic is removed; without it the client gets the error', async () => {
    const { proxy, port } = await freshProxy();
    const t = await proxy.addToxic(toxic({ type: 'redis_error', name: 'loading', attributes: { commands: ['GET'], error: 'LOADING Redis is loading the dataset in memory' } }));
    const plain = ioredis(port);
    await plain.connect();
    await expect(plain.get('k')).rejects.toThrow(/^LOADING/);
    let retries = 0;
    const patient = new Redis({
      host: '127.0.0.1',
      port,
      reconnectOnError: (err) => {
        if (!err.message.startsWith('LOADING')) return false;
        retries++;
        return 2; // reconnect and resend the command
      },
      retryStrategy: () => 10,
    });
    const value = patient.get('k');
    await vi.waitUntil(() => retries >= 3, { timeout: 5000, interval: 5 });
    await t.remove();
    expect(await value).toBe('v');
    plain.disconnect();
    patient.disconnect();
    await proxy.remove();
  });

  it('redis_latency: only the matching command and what queues behind it on its connection are slow', async () => {
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'redis_latency', attributes: { commands: ['GET'], latency: 60 } }));
    const c = ioredis(port);
    const other = ioredis(port);
    await c.connect();
    await other.connect();
    const t0 = Date.now();
    const stamp = <T>(p: Promise<T>) => p.then(() => Date.now() - t0);
    const [set, get, ping, otherPing] = await Promise.all([stamp(c.set('a', '1')), stamp(c.get('a')), stamp(c.ping()), stamp(other.ping())]);
    expect(set).toBeLessThan(40);
    expect(get).toBeGreaterThanOrEqual(60);
    expect(ping).toBeGreaterThanOrEqual(60); // queued behind the slow GET
    expect(otherPing).toBeLessThan(40);
    c.disconnect();
    other.disconnect();
    await proxy.remove();
  });

  it('redis_error toxicity 0.1 over 10k commands: about 10% errors, counted in stats', async () => {
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'redis_error', toxicity: 0.1, attributes: { commands: ['GET'], error: 'ERR injected' } }));
    const c = ioredis(port);
    await c.connect();
    const p = c.pipeline();
    for (let i = 0; i < 10_000; i++) p.get('k');
    const res = (await p.exec())!;
    const errors = res.filter(([e]) => e).length;
    expect(res.filter(([e, v]) => !e && v !== 'v')).toEqual([]);
    // Binomial(10000, 0.1): sd 30; 5 sd either side.
    expect(errors).toBeGreaterThan(850);
    expect(errors).toBeLessThan(1150);
    const stats = (await (await fetch(`http://${server.api}/proxies/${proxy.name}/stats`)).json()) as { toxics: { applications: number }[] };
    expect(stats.toxics[0]!.applications).toBe(errors);
    c.disconnect();
    await proxy.remove();
  });

  it('redis-cli and redis-py see the injected error', async () => {
    const { proxy, port } = await freshProxy();
    await proxy.addToxic(toxic({ type: 'redis_error', attributes: { commands: ['GET'], error: 'LOADING Redis is loading' } }));
    const cli = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'GET', 'k']);
    expect(cli.stdout).toMatch(/LOADING Redis is loading/);
    const cliSet = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'SET', 'k', 'v']);
    expect(cliSet.stdout.trim()).toBe('OK');
    const py = await run('/usr/bin/python3', [
      '-c',
      'import redis,sys\nr=redis.Redis(host="127.0.0.1",port=int(sys.argv[1]))\nprint(r.set("k","v"))\ntry:\n  r.get("k")\nexcept redis.exceptions.BusyLoadingError as e:\n  print("BusyLoadingError", e)',
      String(port),
    ]);
    expect(py.stdout).toMatch(/^True\nBusyLoadingError Redis is loading/);
    await proxy.remove();
  });

  it('failover loading: answers LOADING for `duration`, then recovers by itself', async () => {
    const { proxy, port } = await freshProxy();
    const c = ioredis(port);
    await c.connect();
    await proxy.addToxic(toxic({ type: 'failover', attributes: { duration: LOADING_MS, mode: 'loading' } }));
    await expect(c.get('k')).rejects.toThrow(/^LOADING/);
    await sleep(LOADING_MS + AFTER_WINDOW_MS);
    expect(await c.get('k')).toBe('v');
    c.disconnect();
    await proxy.remove();
  });

  it('failover refuse: live connections drop and new ones fail for `duration`', async () => {
    const { proxy, port } = await freshProxy();
    const c = ioredis(port);
    c.on('error', () => undefined);
    await c.connect();
    const ended = new Promise<void>((r) => c.once('end', () => r()));
    await proxy.addToxic(toxic({ type: 'failover', attributes: { duration: REFUSE_MS } }));
    await ended;
    // A connection during the window is accepted and reset at once (or fails while connecting).
    const res = await new Promise<string>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      s.once('close', () => resolve('closed'));
      s.once('connect', () => s.write('PING\r\n'));
    });
    expect(['ECONNRESET', 'closed']).toContain(res);
    await sleep(REFUSE_MS + AFTER_WINDOW_MS);
    const again = ioredis(port);
    await again.connect();
    expect(await again.ping()).toBe('PONG');
    again.disconnect();
    await proxy.remove();
  });

  it('redis_drop: the reply never comes and later replies wait; close:true closes the connection', async () => {
    const { proxy, port } = await freshProxy();
    const t = await proxy.addToxic(toxic({ type: 'redis_drop', attributes: { commands: ['GET'] } }));
    const s = await rawSocket('127.0.0.1', port);
    const chunks: Buffer[] = [];
    s.on('data', (d: Buffer) => chunks.push(d));
    s.write('SET k v\r\nGET k\r\nPING\r\n');
    await vi.waitUntil(() => Buffer.concat(chunks).toString() === '+OK\r\n', { timeout: 5000, interval: 5 });
    await sleep(NOTHING_COMES_MS);
    expect(Buffer.concat(chunks).toString()).toBe('+OK\r\n'); // neither the GET reply nor the PONG behind it
    s.destroy();
    await t.update({ attributes: { close: true } } as never);
    const s2 = await rawSocket('127.0.0.1', port);
    const got = collect(s2);
    s2.write('PING\r\nGET k\r\nPING\r\n');
    expect((await got).toString()).toBe('+PONG\r\n');
    s2.destroy();
    await proxy.remove();
  });
});
