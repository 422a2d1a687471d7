import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { proxyClient, rawSocket } from './helpers.js';

/** The reader stays stopped this long, RSS sampled every RSS_SAMPLE_MS: nothing more may pile up in the proxy. */
const STALL_HOLD_MS = 1000;
const RSS_SAMPLE_MS = 25;

describe('memory stays bounded when the reader is slow', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    // Let Redis hold the backlog for a slow client instead of dropping it (as on a real network).
    redis = await startPrivateRedis({ args: ['--client-output-buffer-limit', 'normal 0 0 0'] });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('holds RSS growth far below the backlog: 320 MiB of replies due to a reader that stopped', async () => {
    const proxy = await startSingleNodeProxy({ upstream: redis.address, link: { rttUs: 200 }, highWaterBytes: 4 << 20 });
    try {
      const c = proxyClient(proxy);
      await c.connect();
      await c.set('big', Buffer.alloc(16 << 20, 120));
      c.disconnect();
      global.gc?.();
      const rss0 = process.memoryUsage().rss;
      const s = await rawSocket(proxy.host!, proxy.port!);
      s.pause();
      s.write('*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n'.repeat(20));
      let peak = 0;
      for (let i = 0; i < STALL_HOLD_MS / RSS_SAMPLE_MS; i++) {
        await sleep(RSS_SAMPLE_MS);
        peak = Math.max(peak, process.memoryUsage().rss - rss0);
      }
      // Redis has 320 MiB to send; the proxy may hold its high-water mark per direction plus socket
      // buffers and one read in flight. 120 MiB leaves room for allocator noise and the test client.
      expect(peak).toBeLessThan(120 << 20);

      // Now read everything: nothing lost, nothing reordered.
      let received = 0;
      s.on('data', (d: Buffer) => (received += d.length));
      s.resume();
      const perReply = '$16777216\r\n'.length + (16 << 20) + 2;
      await vi.waitUntil(() => received >= 20 * perReply, { timeout: 30_000, interval: 20 });
      expect(received).toBe(20 * perReply);
      s.destroy();
    } finally {
      await proxy.close();
    }
  });
});
