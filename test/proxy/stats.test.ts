import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { CloseOptions, ProxyOptions, RedisRttProxy } from '../../src/proxy/types.js';
import { proxyClient } from './helpers.js';

describe('round trips counted by the proxy for a real client', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 500 }, control: '127.0.0.1:0' });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('a sequential loop of N is N round trips; a pipeline of B is one', async () => {
    const c = proxyClient(proxy); // ioredis 6: RESP3 (HELLO 3) by default
    await c.connect();
    await c.ping();
    proxy.resetStats();
    for (let i = 0; i < 50; i++) await c.set(`k${i}`, 'v');
    let t = proxy.stats().totals;
    expect(t.commands).toBe(50);
    expect(t.replies).toBe(50);
    expect(t.roundTrips).toBe(50);
    expect(t.maxDepth).toBe(1);

    proxy.resetStats();
    const p = c.pipeline();
    for (let i = 0; i < 100; i++) p.get(`k${i % 50}`);
    await p.exec();
    await vi.waitUntil(() => proxy.stats().totals.replies === 100, { timeout: 5000, interval: 5 });
    t = proxy.stats().totals;
    expect(t.commands).toBe(100);
    expect(t.roundTrips).toBe(1);
    expect(t.maxDepth).toBe(100);
    expect(t.unparsedBytes).toBe(0);
    expect(proxy.stats().commands['GET']?.count).toBe(100);
    c.disconnect();
  });

  it('serves /stats, /metrics and PUT /link over HTTP', async () => {
    const base = `http://${proxy.controlAddress}`;
    const stats = (await (await fetch(`${base}/stats`)).json()) as Record<string, unknown>;
    expect(Object.keys(stats).sort()).toEqual(['commands', 'connections', 'link', 'self', 'tap', 'totals']);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/redis_rtt_round_trips_total/);
    const put = await fetch(`${base}/link`, { method: 'PUT', body: JSON.stringify({ rttUs: 1200 }) });
    expect(put.status).toBe(200);
    expect(proxy.link()).toMatchObject({ upUs: 600, downUs: 600 });
    const bad = await fetch(`${base}/link`, { method: 'PUT', body: '{"rttUs": -5}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/rttUs/);
    // JSON.parse reads 1e400 as Infinity, which JSON.stringify showed as "invalid value null".
    const huge = await fetch(`${base}/link`, { method: 'PUT', body: '{"rttUs": 1e400}' });
    expect(((await huge.json()) as { error: string }).error).toMatch(/^rttUs: invalid value Infinity; expected/);
    const notJson = await fetch(`${base}/link`, { method: 'PUT', body: 'rtt=5' });
    expect(notJson.status).toBe(400);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/stats`, { method: 'DELETE' })).status).toBe(405);
  });

  /**
   * A pipeline's 1000 replies counted by the tap and held on the way to the client when the proxy
   * closes: close() delivers what is due within its limit (the link's round trip + 100 ms);
   * what it drops (close({ drain: false }), or held past the limit) it counts not at all, where
   * it counted them as sent though the client never got them.
   */
  const slowToxic = { type: 'latency', stream: 'downstream', attributes: { latency: 1000 } };
  const cases: [string, ProxyOptions['link'], CloseOptions, number, object?][] = [
    ['close() with the replies in a 200 ms down delay: delivered', { downUs: 200_000 }, {}, 1000],
    ['close({ drain: false }) with the replies in a 200 ms down delay: dropped', { downUs: 200_000 }, { drain: false }, 0],
    ['close() with the replies in a 1 s toxic, past the limit: dropped there', { downUs: 100_000 }, {}, 0, slowToxic],
  ];
  for (const [name, link, closeOptions, delivered, toxic] of cases) {
    it(`${name}; the counts are what the client got`, async () => {
      const p = await startSingleNodeProxy({ upstream: redis.address, link, compensationUs: { up: 0, down: 0 }, handshake: false, log: () => undefined });
      const c = proxyClient(p, { enableReadyCheck: false });
      c.on('error', () => undefined);
      try {
        await c.connect(); // its own handshake answered before the toxic is on
        if (toxic) p.addToxic(toxic);
        const before = p.stats().totals.replies;
        const pipeline = c.pipeline();
        for (let i = 0; i < 1000; i++) pipeline.get('drain');
        const done = pipeline.exec().then(
          (r) => r?.filter(([err]) => err === null).length ?? 0,
          () => 0,
        );
        await vi.waitFor(() => expect(p.stats().totals.replies).toBe(before + 1000), { timeout: 5000, interval: 5 });
        await p.close(closeOptions);
        expect(await done).toBe(delivered);
        const t = p.stats().totals;
        expect(t.replies).toBe(before + delivered);
        expect(t.bytesDown).toBe(c.stream.bytesRead);
      } finally {
        c.disconnect();
        await p.close();
      }
    });
  }
});
