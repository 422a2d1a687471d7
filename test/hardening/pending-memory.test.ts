import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { blpopThenPipeline } from './helpers/blpop-pipeline.js';
import { startCliProxy } from './helpers/cli-proxy.js';
import { MiB, procMemory } from './helpers/proc.js';

// Issue 17's case; the figures before and after the pending-request bound are in docs/SECURITY.md.
const PING_BYTES = Number(process.env.ISSUE17_PING_BYTES ?? 56 * 1000 * 1000);

describe('memory stays bounded whatever a client pipelines', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('a BLPOP ahead of 56 MB of pipelined PINGs: every reply in order, VmHWM under 250 MiB', async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--control', '127.0.0.1:0', '--compensate', '0']);
    try {
      const r = await blpopThenPipeline({ host: p.host, port: p.port }, PING_BYTES);
      const mem = procMemory(p.pid);
      const stats = await p.stats();
      process.stderr.write(`issue17 blpop+pipeline: ${JSON.stringify({ ...r, hwmMiB: +(mem.hwmBytes / MiB).toFixed(1), rssMiB: +(mem.rssBytes / MiB).toFixed(1), tap: stats.tap })}\n`);
      expect(stats.commands.PING?.count).toBe(r.pings);
      expect(stats.tap).toMatchObject({ pendingRequests: 0, maxPendingPerConnection: 65_536, maxPendingTotal: 262_144, degradedConnections: 1 });
      expect(mem.hwmBytes).toBeLessThan(250 * MiB);
    } finally {
      await p.stop();
    }
  }, 120_000);

  it('past the per-connection or the total bound a tap stops timing; replies all arrive, others stay timed', async () => {
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      maxPendingPerConnection: 100,
      maxPendingTotal: 150,
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
    });
    const a = new Redis({ host: p.host, port: p.port });
    const b = new Redis({ host: p.host, port: p.port });
    const c = new Redis({ host: p.host, port: p.port });
    try {
      await Promise.all([a.ping(), b.ping(), c.ping()]);
      // a: 500 pipelined INCRs, past its own bound of 100; every reply arrives, in order.
      const pipe = a.pipeline();
      for (let i = 0; i < 500; i++) pipe.incr('n');
      const replies = (await pipe.exec())!.map(([, v]) => v);
      expect(replies).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
      let s = p.stats();
      expect(s.tap).toMatchObject({ pendingRequests: 0, degradedConnections: 1 });
      expect(p.connections().filter((x) => x.degraded).length).toBe(1);
      // b: 90 requests held behind a BLPOP, under its own bound; c then needs 70 more: past the total.
      const blocked = b.pipeline().blpop('issue17:empty', 0);
      for (let i = 0; i < 89; i++) blocked.ping();
      const bDone = blocked.exec();
      await vi.waitUntil(() => (p.stats().tap?.pendingRequests ?? 0) >= 90, { timeout: 3000, interval: 10 });
      expect(p.stats().tap?.pendingRequests).toBe(90);
      const cPipe = c.pipeline();
      for (let i = 0; i < 70; i++) cPipe.ping();
      expect((await cPipe.exec())!.every(([err, v]) => err === null && v === 'PONG')).toBe(true);
      await c.lpush('issue17:empty', 'x');
      const bReplies = (await bDone)!.map(([, v]) => v);
      expect(bReplies[0]).toEqual(['issue17:empty', 'x']);
      expect(bReplies.slice(1).every((v) => v === 'PONG')).toBe(true);
      s = p.stats();
      expect(s.tap).toMatchObject({ pendingRequests: 0, degradedConnections: 2 });
      // b stayed timed: its BLPOP has a latency; the degraded ones are still counted.
      expect(s.commands['BLPOP']?.serverUs.count).toBe(1);
      expect(s.commands['INCR']?.count).toBe(500);
    } finally {
      a.disconnect();
      b.disconnect();
      c.disconnect();
      await p.close();
    }
  });
});
