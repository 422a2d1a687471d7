import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import type { FrameStageFactory, RequestAction } from '../../src/stage/types.js';
import { proxyClient, rawSocket } from './helpers.js';

const WAIT = { timeout: 5000, interval: 5 };

function cmd(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

function answerGets(name: string): FrameStageFactory {
  return {
    kind: 'frame',
    name,
    create: () => ({
      onRequest: (r): RequestAction =>
        r.name === 'GET' && r.firstKey?.toString().startsWith('local:')
          ? { kind: 'answer', reply: Buffer.from(`$${r.firstKey.length}\r\n${r.firstKey}\r\n`) }
          : { kind: 'forward' },
    }),
  };
}

/** A raw client whose received bytes accumulate in `got()`. */
async function rawClient(proxy: RedisRttProxy): Promise<{ s: net.Socket; got: () => string }> {
  const s = await rawSocket(proxy.host!, proxy.port!);
  let got = '';
  s.on('data', (c: Buffer) => (got += c.toString('latin1')));
  return { s, got: () => got };
}

describe('a frame stage added to a live unframed connection (real redis-server)', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, handshake: false, log: () => {} });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('reaches it at the next frame boundary: a request cut in two when the stage came passes unframed', async () => {
    const { s, got } = await rawClient(proxy);
    const first = cmd('GET', 'local:a');
    s.write(first.slice(0, 20));
    await vi.waitUntil(() => proxy.stats().totals.bytesUp === 20, WAIT);
    proxy.addStage(answerGets('live-1'));
    s.write(first.slice(20));
    // Redis answers the cut request: it was under way when the stage came.
    await vi.waitUntil(() => got() === '$-1\r\n', WAIT);
    s.write(cmd('GET', 'local:b') + cmd('PING'));
    await vi.waitUntil(() => got().length >= '$-1\r\n$7\r\nlocal:b\r\n+PONG\r\n'.length, WAIT);
    expect(got()).toBe('$-1\r\n$7\r\nlocal:b\r\n+PONG\r\n');
    s.destroy();
    proxy.removeStage('live-1');
  });

  it('holds framed requests until the replies of the unframed ones in flight came, so every reply keeps its place', async () => {
    proxy.setLink({ rttUs: 40_000 });
    try {
      const { s, got } = await rawClient(proxy);
      await vi.waitUntil(() => proxy.stats().connections.active === 1, WAIT);
      proxy.resetStats();
      s.write(cmd('SET', 'k', 'v'));
      await vi.waitUntil(() => proxy.stats().totals.commands === 1, WAIT);
      // SET is still crossing the link: its reply comes after the stage did.
      proxy.addStage(answerGets('live-2'));
      s.write(cmd('GET', 'local:c') + cmd('GET', 'k'));
      const want = '+OK\r\n$7\r\nlocal:c\r\n$1\r\nv\r\n';
      await vi.waitUntil(() => got().length >= want.length, WAIT);
      expect(got()).toBe(want);
      await vi.waitUntil(() => proxy.stats().totals.replies === 3, WAIT);
      expect(proxy.stats().totals.commands).toBe(3);
      s.destroy();
    } finally {
      proxy.removeStage('live-2');
      proxy.setLink({ rttUs: 0 });
    }
  });

  it('keeps the protocol the tap followed (RESP3 after HELLO 3)', async () => {
    const c = proxyClient(proxy, { protocol: 3 });
    await c.connect();
    await c.set('k3', 'v3');
    proxy.addStage(answerGets('live-3'));
    try {
      expect(await c.get('local:d')).toBe('local:d');
      expect(await c.get('k3')).toBe('v3');
    } finally {
      c.disconnect();
      proxy.removeStage('live-3');
    }
  });
});

describe('a frame stage added with --no-tap', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  const logs: string[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, tap: false, compensationUs: { up: 0, down: 0 }, log: (l) => logs.push(l) });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('applies to new connections only, and says so when added', async () => {
    const live = proxyClient(proxy);
    await live.connect();
    await live.ping();
    proxy.addStage(answerGets('no-tap'));
    expect(logs.filter((l) => l.includes('frame stage no-tap: applies to connections accepted from now on, not to 1 live one'))).toHaveLength(1);
    expect(await live.get('local:e')).toBeNull();
    const fresh = proxyClient(proxy);
    await fresh.connect();
    expect(await fresh.get('local:e')).toBe('local:e');
    // With no tap the listener counts the clients: never fewer in all than open now.
    expect(proxy.stats().connections).toEqual({ active: 2, total: 2 });
    live.disconnect();
    proxy.resetStats();
    await vi.waitUntil(() => proxy.stats().connections.active === 1, { timeout: 3000, interval: 5 });
    expect(proxy.stats().connections.total).toBeGreaterThanOrEqual(1);
    fresh.disconnect();
  });
});
