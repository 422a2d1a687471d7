import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { quantile } from '../../src/numbers/quantiles.js';
import { proxyClient } from './helpers.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { controlRequest } from '../hardening/helpers/http.js';

const run = promisify(execFile);

describe('segment loss through the proxy (real Redis, real clients)', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  // 1% loss each way at 1.2 ms RTT: a GET and its reply are one segment each, so about 2% of GETs
  // (40 of 2000, seeded) lose one and pay an RTO of SRTT + 200 ms = 201.2 ms on top of the RTT.
  // The p99 (the 1980th) falls among them: 202.4 ms by the model, with 200-260 ms allowed for a
  // loaded machine; the p50 stays at the RTT (1.2 ms, up to 4 ms allowed for scheduling).
  it('ioredis: 2000 sequential GETs at 1% loss / 1.2 ms keep p50 at the RTT, p99 at one RTO, every reply right and in order', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1200, loss: 0.01 }, seed: 24 });
    const c = proxyClient(proxy);
    try {
      await c.connect();
      const keys = 50;
      for (let k = 0; k < keys; k++) await c.set(`loss:${k}`, `value-${k}-${'x'.repeat(k * 7)}`);
      proxy.resetStats();
      const ms: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const k = i % keys;
        const t0 = performance.now();
        const v = await c.get(`loss:${k}`);
        ms.push(performance.now() - t0);
        expect(v).toBe(`value-${k}-${'x'.repeat(k * 7)}`);
      }
      ms.sort((a, b) => a - b);
      expect(quantile(ms, 0.5)).toBeGreaterThan(1.1);
      expect(quantile(ms, 0.5)).toBeLessThan(4);
      expect(quantile(ms, 0.99)).toBeGreaterThan(200);
      expect(quantile(ms, 0.99)).toBeLessThan(260);
      const loss = proxy.stats().loss!;
      expect(loss.up.segments).toBeGreaterThanOrEqual(2000);
      expect(loss.up.lost + loss.down.lost).toBeGreaterThan(20);
      expect(loss.up.lost + loss.down.lost).toBeLessThan(70);
      expect(loss.down.retransmitNs / loss.down.lost / 1e6).toBeGreaterThan(201);
    } finally {
      c.disconnect();
      await proxy.close();
    }
  }, 60_000);

  // Two connections, resends 200 ms out between sub-millisecond deliveries: before the timer
  // thread published its own wake time, both connections here hung forever at their first loss.
  it('ioredis: two connections under loss both finish, every reply right', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1200, loss: 0.02 }, seed: 2026 });
    const cs = [proxyClient(proxy), proxyClient(proxy)];
    try {
      for (const c of cs) await c.connect();
      await cs[0]!.set('two', 'conns');
      const got = await Promise.all(
        cs.map(async (c) => {
          let right = 0;
          for (let i = 0; i < 150; i++) if ((await c.get('two')) === 'conns') right++;
          return right;
        }),
      );
      expect(got).toEqual([150, 150]);
      const loss = proxy.stats().loss!;
      expect(loss.up.lost + loss.down.lost).toBeGreaterThan(0);
    } finally {
      for (const c of cs) c.disconnect();
      await proxy.close();
    }
  }, 30_000);

  // TCP's in-order delivery holds what follows a lost segment on its connection, and only there:
  // while one connection's GET waits for its resend (an RTO, 201.2 ms), another's go at the RTT.
  it('ioredis: a lost segment holds its own connection only; another connection\'s GETs go on at the RTT', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1200 }, seed: 7 });
    const [a, b] = [proxyClient(proxy), proxyClient(proxy)];
    try {
      await a.connect();
      await b.connect();
      await a.set('hol', 'held');
      let held: { reply: Promise<string | null>; t0: number; settled: () => boolean } | undefined;
      for (let tries = 0; !held && tries < 50; tries++) {
        // Loss on for one GET of A's, off once the proxy has planned it: B's GETs are never lost.
        proxy.setLink({ lossUp: 0.5 });
        const lostBefore = proxy.stats().loss!.up.lost;
        let done = false;
        const t0 = performance.now();
        const reply = a.get('hol').finally(() => (done = true));
        await vi.waitFor(() => expect(done || proxy.stats().loss!.up.lost > lostBefore).toBe(true), { timeout: 2000, interval: 1 });
        proxy.setLink({ lossUp: 0 });
        if (proxy.stats().loss!.up.lost > lostBefore) held = { reply, t0, settled: () => done };
        else await reply;
      }
      expect(held).toBeDefined();
      const bMs: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        expect(await b.get('hol')).toBe('held');
        bMs.push(performance.now() - t0);
      }
      expect(held!.settled()).toBe(false);
      expect(Math.max(...bMs)).toBeLessThan(50);
      expect(await held!.reply).toBe('held');
      expect(performance.now() - held!.t0).toBeGreaterThan(200);
    } finally {
      a.disconnect();
      b.disconnect();
      await proxy.close();
    }
  }, 30_000);

  it('redis-py and redis-cli: a pipeline of 300 large replies at 5% loss arrives whole and in order', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 200, loss: '5%', mssBytes: 536 }, seed: 5 });
    try {
      const py = await run(
        '/usr/bin/python3',
        [
          '-c',
          [
            'import redis,sys',
            'r=redis.Redis(host="127.0.0.1",port=int(sys.argv[1]))',
            'p=r.pipeline(transaction=False)',
            'for i in range(300): p.set(f"big:{i}", str(i)*(1000+i))',
            'p.execute()',
            'p=r.pipeline(transaction=False)',
            'for i in range(300): p.get(f"big:{i}")',
            'out=p.execute()',
            'print(all(v==(str(i)*(1000+i)).encode() for i,v in enumerate(out)), len(out))',
          ].join('\n'),
          String(proxy.port),
        ],
        { timeout: 60_000 },
      );
      expect(py.stdout.trim()).toBe('True 300');
      const cli = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(proxy.port), 'GET', 'big:299'], { timeout: 60_000 });
      expect(cli.stdout.trim()).toBe('299'.repeat(1299));
      const loss = proxy.stats().loss!;
      // About 600 kB down in 536-byte segments: over a thousand segments, some 5% of them lost.
      expect(loss.down.segments).toBeGreaterThan(1000);
      expect(loss.down.lost).toBeGreaterThan(loss.down.segments * 0.03);
      expect(loss.down.lost).toBeLessThan(loss.down.segments * 0.08);
    } finally {
      await proxy.close();
    }
  }, 90_000);

  it('PUT-style bad loss is refused whole, naming the key, and the live link keeps its settings', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 1200, loss: 0.01 } });
    try {
      expect(() => proxy.setLink({ rttUs: 5000, lossUp: 1 })).toThrow(/lossUp: invalid value 1; expected a loss probability in \[0, 1\)/);
      expect(() => proxy.setLink({ loss: -0.1 })).toThrow(/^loss: /);
      expect(() => proxy.setLink({ loss: '150%' })).toThrow(/^loss: /);
      expect(proxy.link()).toMatchObject({ upUs: 600, downUs: 600, lossUp: 0.01, lossDown: 0.01 });
      expect(proxy.setLink({ lossDown: '2.5%' })).toMatchObject({ lossUp: 0.01, lossDown: 0.025 });
    } finally {
      await proxy.close();
    }
  });
});

describe('loss on the CLI and the control endpoint', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('redis-rtt proxy --loss 1 exits 2 naming --loss; PUT /link refuses loss 1 whole and keeps the link', async () => {
    const bad = await runCli(['proxy', '--upstream', redis.address, '--loss', '1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--loss: invalid value "1"; expected a loss probability in \[0, 1\)/);
    const p = await startCliProxy(['--upstream', redis.address, '--listen', '127.0.0.1:0', '--control', '127.0.0.1:0', '--rtt', '1.2ms', '--loss', '0.5%']);
    try {
      const put = await controlRequest(p.line.control!, 'PUT', '/link', { body: '{"rttUs": 5000, "loss": 1}' });
      expect(put.status).toBe(400);
      expect(put.body).toMatch(/loss: invalid value 1/);
      const stats = await p.stats();
      expect(stats.link).toMatchObject({ upUs: 600, downUs: 600, lossUp: 0.005, lossDown: 0.005 });
      expect(stats.loss).toMatchObject({ up: { segments: 0 }, down: { segments: 0 } });
      const ok = await controlRequest(p.line.control!, 'PUT', '/link', { body: '{"lossDown": "2%"}' });
      expect(ok.status).toBe(200);
      expect((await p.stats()).link).toMatchObject({ lossUp: 0.005, lossDown: 0.02 });
      const metrics = (await controlRequest(p.line.control!, 'GET', '/metrics')).body;
      expect(metrics).toMatch(/^redis_rtt_link_loss_ratio\{direction="down"\} 0\.02$/m);
      expect(metrics).toMatch(/^redis_rtt_loss_segments_total\{direction="up"\} 0$/m);
    } finally {
      await p.stop();
    }
  }, 40_000);
});
