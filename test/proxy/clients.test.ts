import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { collect, proxyClient, rawSocket } from './helpers.js';

const run = promisify(execFile);

/** Real clients through the real proxy: what the tap counts must be exact. */
describe('counts for real clients through the proxy', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 200 }, compensationUs: { up: 0, down: 0 } });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });
  beforeEach(async () => {
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 5000, interval: 5 });
    proxy.resetStats();
  });

  it('redis-benchmark -P 16 with inline and multibulk PINGs: every command, no unparsed byte', async () => {
    await run('redis-benchmark', ['-h', proxy.host!, '-p', String(proxy.port), '-c', '1', '-P', '16', '-n', '1000', '-t', 'ping_inline,ping_mbulk', '-q']);
    const s = proxy.stats();
    // redis-benchmark -P 16 sends whole batches: ceil(1000/16) = 63 batches of 16 per test
    expect(s.commands['PING']?.count).toBe(2 * 63 * 16);
    expect(s.totals.unparsedBytes).toBe(0);
    expect(s.totals.replies).toBe(s.totals.commands);
    // 1000 PINGs 16 at a time: ceil(1000/16) = 63 round trips per test, plus redis-benchmark's own CONFIG GETs
    const extra = s.totals.commands - 2 * 63 * 16;
    expect(s.totals.roundTrips).toBeGreaterThanOrEqual(126);
    expect(s.totals.roundTrips).toBeLessThanOrEqual(126 + extra);
    expect(s.totals.maxDepth).toBe(16);
  });

  it('redis-cli -3 speaks RESP3 through the tap without losing sync', async () => {
    await run('redis-cli', ['-3', '-h', proxy.host!, '-p', String(proxy.port), 'HSET', 'h', 'f', 'v']);
    const { stdout } = await run('redis-cli', ['-3', '-h', proxy.host!, '-p', String(proxy.port), 'HGETALL', 'h']);
    expect(stdout.trim().split(/\s+/)).toEqual(['f', 'v']);
    const s = proxy.stats();
    expect(s.commands['HELLO']?.count).toBe(2);
    expect(s.commands['HGETALL']?.count).toBe(1);
    expect(s.totals.unparsedBytes).toBe(0);
    expect(s.totals.replies).toBe(s.totals.commands);
  });

  for (const protocol of [2, 3] as const) {
    it(`pub/sub over RESP${protocol}: messages are pushes, never replies or round trips`, async () => {
      const sub = proxyClient(proxy, { protocol });
      const pub = proxyClient(proxy, { protocol });
      await sub.connect();
      await pub.connect();
      proxy.resetStats();
      const got: string[] = [];
      sub.on('message', (_ch: string, m: string) => got.push(m));
      await sub.subscribe('news');
      for (let i = 0; i < 5; i++) await pub.publish('news', `m${i}`);
      await vi.waitUntil(() => got.length === 5, { timeout: 3000, interval: 5 });
      await vi.waitUntil(() => proxy.stats().totals.pushes === 5, { timeout: 3000, interval: 5 });
      const t = proxy.stats().totals;
      expect(t.commands).toBe(6); // SUBSCRIBE + 5 PUBLISH
      expect(t.replies).toBe(6); // the subscribe confirmation answers SUBSCRIBE
      expect(t.roundTrips).toBe(6);
      expect(t.unparsedBytes).toBe(0);
      sub.disconnect();
      pub.disconnect();
    });
  }

  it('MONITOR lines are pushes', async () => {
    const mon = await rawSocket(proxy.host!, proxy.port!);
    mon.on('data', () => undefined);
    mon.write('*1\r\n$7\r\nMONITOR\r\n');
    await vi.waitUntil(() => (proxy.stats().totals.replies ?? 0) >= 1, { timeout: 5000, interval: 5 });
    const c = proxyClient(proxy, { protocol: 2 });
    await c.connect();
    for (let i = 0; i < 3; i++) await c.set(`m${i}`, 'v');
    await vi.waitUntil(() => proxy.stats().totals.pushes >= 3, { timeout: 3000, interval: 5 });
    const t = proxy.stats().totals;
    // MONITOR shows every command of the other client (its handshake too): all pushes, none a reply
    expect(t.pushes).toBeGreaterThanOrEqual(3);
    expect(t.replies).toBe(t.commands);
    mon.destroy();
    c.disconnect();
  });

  it('CLIENT REPLY OFF silences replies until ON', async () => {
    const s = await rawSocket(proxy.host!, proxy.port!);
    const all = collect(s);
    s.end(
      '*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n' +
        '*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n' +
        '*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$2\r\nON\r\n' +
        '*2\r\n$3\r\nGET\r\n$1\r\na\r\n',
    );
    expect((await all).toString()).toBe('+OK\r\n$1\r\n1\r\n');
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 3000, interval: 5 });
    const t = proxy.stats().totals;
    expect(t.commands).toBe(4);
    expect(t.replies).toBe(2);
    expect(proxy.stats().commands['CLIENT REPLY']?.count).toBe(2);
  });

  // The tap's matcher alone, and the frame chain's (a Redis-aware toxic frames the stream).
  it.each([false, true])('what Redis 7 does under CLIENT REPLY SKIP/OFF is followed: a skipped RESET, pushed confirmations, a silent HELLO 3 (frame chain %s)', async (framed) => {
    const toxics = [{ type: 'redis_latency', attributes: { commands: ['GET'], latency: 1 } }];
    const p = framed ? await startSingleNodeProxy({ upstream: redis.address, toxics, compensationUs: { up: 0, down: 0 } }) : proxy;
    try {
      await replyModesSession(p);
    } finally {
      if (p !== proxy) await p.close();
    }
  });

  async function replyModesSession(proxy: RedisRttProxy): Promise<void> {
    // Each step waits for its reply, so every reply is its own round trip and nothing is left waiting.
    const s = await rawSocket(proxy.host!, proxy.port!);
    let got = '';
    s.on('data', (c: Buffer) => (got += c.toString('latin1')));
    const step = async (bytes: string, until: string): Promise<void> => {
      s.write(bytes);
      await vi.waitUntil(() => got.endsWith(until), { timeout: 3000, interval: 2 });
    };
    s.write('CLIENT REPLY SKIP\r\nRESET\r\n');
    await step('ECHO a\r\n', '$1\r\na\r\n');
    await step('ECHO b\r\n', '$1\r\nb\r\n');
    s.write('CLIENT REPLY OFF\r\nHELLO 3\r\n');
    await step('CLIENT REPLY ON\r\n', '+OK\r\n');
    await step('CLIENT REPLY SKIP\r\nSUBSCRIBE ch\r\n', ':1\r\n');
    await step('PING\r\n', '+PONG\r\n');
    expect(got).toBe('$1\r\na\r\n$1\r\nb\r\n+OK\r\n>3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n+PONG\r\n');
    const conn = proxy.connections()[0]!;
    expect(conn).toMatchObject({ protocol: 3, mode: 'subscribed', outstanding: 0 });
    s.destroy();
    await vi.waitUntil(() => proxy.stats().connections.active === 0, { timeout: 3000, interval: 5 });
    const t = proxy.stats().totals;
    expect(t).toMatchObject({ commands: 10, replies: 5, pushes: 0, roundTrips: 5, maxDepth: 1 });
  }

  it('MULTI/EXEC with an error inside: B+2 commands in one round trip, the error counted', async () => {
    const c = proxyClient(proxy, { protocol: 2 });
    await c.connect();
    await c.set('str', 'x');
    proxy.resetStats();
    const res = await c.multi().incr('n').lpush('str', 'boom').incr('n').exec();
    expect(res?.[1]?.[0]).toBeInstanceOf(Error);
    const t = proxy.stats().totals;
    expect(t.commands).toBe(5);
    expect(t.replies).toBe(5);
    expect(t.roundTrips).toBe(1);
    expect(t.errorsByPrefix).toEqual({});
    c.disconnect();
  });

  it('BLPOP is counted as blocking, its wait kept apart', async () => {
    const c = proxyClient(proxy, { protocol: 2 });
    await c.connect();
    proxy.resetStats();
    expect(await c.blpop('empty-list', 0.2)).toBeNull();
    const s = proxy.stats();
    expect(s.totals.blockingCommands).toBe(1);
    expect(s.commands['BLPOP']?.blocking).toBe(true);
    expect(s.commands['BLPOP']?.serverUs.p50).toBeGreaterThanOrEqual(150_000);
    c.disconnect();
  });
});
