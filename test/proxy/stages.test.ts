import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import type { FrameStageFactory, ReplyAction, RequestAction } from '../../src/stage/types.js';
import { client, collect, proxyClient, rawSocket } from './helpers.js';

const answerGets: FrameStageFactory = {
  kind: 'frame',
  name: 'answer-get',
  create: () => ({
    onRequest: (r): RequestAction =>
      r.name === 'GET' && r.firstKey?.toString().startsWith('local:')
        ? { kind: 'answer', reply: Buffer.from(`$${r.firstKey.length}\r\n${r.firstKey}\r\n`) }
        : { kind: 'forward' },
  }),
};

describe('frame stages on a live proxy (real redis-server, ioredis)', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 400 }, compensationUs: { up: 0, down: 0 }, stages: [answerGets] });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('answers GET locally inside a 100-command mixed pipeline, every reply in order, the tap exact', async () => {
    const c = proxyClient(proxy, { protocol: 2 });
    await c.connect();
    proxy.resetStats();
    const p = c.pipeline();
    const want: unknown[] = [];
    for (let i = 0; i < 100; i++) {
      const k = i % 4;
      if (k === 0) {
        p.get(`local:${i}`);
        want.push(`local:${i}`);
      } else if (k === 1) {
        p.set(`k${i}`, `v${i}`);
        want.push('OK');
      } else if (k === 2) {
        p.get(`k${i - 1}`);
        want.push(`v${i - 1}`);
      } else {
        p.incr('n');
        want.push(Math.floor(i / 4) + 1);
      }
    }
    const res = await p.exec();
    expect(res!.map(([err, v]) => err ?? v)).toEqual(want);
    await vi.waitUntil(() => proxy.stats().totals.replies === 100, { timeout: 3000, interval: 5 });
    const t = proxy.stats().totals;
    expect(t.commands).toBe(100);
    expect(t.roundTrips).toBe(1);
    expect(t.pushes).toBe(0);
    c.disconnect();
  });

  it('lists, adds and removes stages; a duplicate name is a ConfigError', async () => {
    expect(proxy.listStages().map((s) => s.name)).toEqual(['answer-get']);
    expect(() => proxy.addStage(answerGets)).toThrow(/stage name/);
    expect(() => proxy.addStage({ ...answerGets, name: 'link' })).toThrow(/stage name/);
    const replace: FrameStageFactory = {
      kind: 'frame',
      name: 'replace-echo',
      create: () => ({
        onReply: (r): ReplyAction =>
          r.request?.name === 'ECHO' ? { kind: 'replace', reply: Buffer.from('+replaced\r\n') } : { kind: 'pass' },
      }),
    };
    proxy.addStage(replace);
    const c = proxyClient(proxy, { protocol: 2 });
    await c.connect();
    expect(await c.echo('x')).toBe('replaced');
    expect(await c.ping()).toBe('PONG');
    expect(proxy.removeStage('replace-echo')).toBe(true);
    expect(proxy.removeStage('replace-echo')).toBe(false);
    expect(await c.echo('x')).toBe('x');
    c.disconnect();
  });

  it('a dropped request holds every later reply until the connection closes', async () => {
    proxy.addStage({
      kind: 'frame',
      name: 'drop-del',
      create: () => ({ onRequest: (r): RequestAction => (r.name === 'DEL' ? { kind: 'drop' } : { kind: 'forward' }) }),
    });
    try {
      const s = await rawSocket(proxy.host!, proxy.port!);
      const all = collect(s);
      s.write('*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nDEL\r\n$1\r\nx\r\n*1\r\n$4\r\nPING\r\n');
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString()));
      await vi.waitUntil(() => got === '+PONG\r\n', { timeout: 3000, interval: 5 });
      // Redis answered the second PING long ago; it must not appear in DEL's place.
      const probe = proxyClient(proxy, { protocol: 2 });
      await probe.connect();
      for (let i = 0; i < 5; i++) await probe.ping();
      probe.disconnect();
      expect(got).toBe('+PONG\r\n');
      s.end();
      expect((await all).toString()).toBe('+PONG\r\n');
    } finally {
      proxy.removeStage('drop-del');
    }
  });

  it('a promise on a request holds it and everything behind it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let heldSeen = false;
    proxy.addStage({
      kind: 'frame',
      name: 'hold-set',
      create: () => ({
        onRequest: async (r): Promise<RequestAction> => {
          if (r.name === 'SET' && r.firstKey?.toString() === 'held') {
            heldSeen = true;
            await gate;
          }
          return { kind: 'forward' };
        },
      }),
    });
    try {
      const c = proxyClient(proxy, { protocol: 2 });
      await c.connect();
      const order: string[] = [];
      const a = c.set('held', '1').then(() => order.push('set'));
      const b = c.get('held').then((v) => order.push(`get:${v}`));
      await vi.waitUntil(() => heldSeen, { timeout: 3000, interval: 5 });
      const direct = client({ host: redis.host, port: redis.port }, { protocol: 2 });
      await direct.connect();
      expect(await direct.get('held')).toBe(null); // Redis has not seen the SET
      release();
      await Promise.all([a, b]);
      expect(order).toEqual(['set', 'get:1']);
      direct.disconnect();
      c.disconnect();
    } finally {
      proxy.removeStage('hold-set');
    }
  });

  for (const protocol of [2, 3] as const) {
    it(`pub/sub over RESP${protocol} stays aligned with a frame stage on`, async () => {
      const sub = proxyClient(proxy, { protocol });
      const pub = proxyClient(proxy, { protocol });
      await sub.connect();
      await pub.connect();
      proxy.resetStats();
      const got: string[] = [];
      sub.on('message', (_ch: string, m: string) => got.push(m));
      expect(await sub.subscribe('a', 'b', 'c')).toBe(3);
      for (let i = 0; i < 5; i++) await pub.publish(i % 2 ? 'a' : 'c', `m${i}`);
      // The local answer and the forwarded GET both wait behind the pushes in flight.
      expect(await pub.get('local:x')).toBe('local:x');
      await vi.waitUntil(() => got.length === 5, { timeout: 3000, interval: 5 });
      expect(got).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
      expect(await sub.unsubscribe()).toBe(0);
      if (protocol === 3) expect(await sub.get('local:y')).toBe('local:y');
      await vi.waitUntil(() => proxy.stats().totals.pushes === 5, { timeout: 3000, interval: 5 });
      const t = proxy.stats().totals;
      expect(t.replies).toBe(t.commands + 2 + 2); // SUBSCRIBE and UNSUBSCRIBE: 3 confirmations each
      sub.disconnect();
      pub.disconnect();
    });
  }
});
