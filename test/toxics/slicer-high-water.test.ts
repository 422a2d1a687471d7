import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { rawSocket } from '../proxy/helpers.js';

const HIGH_WATER_BYTES = 1_000_000;
/** What the client offers: far more than the high-water mark and the sockets' buffers together. */
const VALUE_BYTES = 64_000_000;
/**
 * What the proxy may have read once its reads pause: one read past the mark's share of one-byte
 * slices. Counted as bytes alone, a million one-byte slices were held, each a Buffer view and queue entries.
 */
const READ_BOUND_BYTES = 256_000;
/** Reads count as paused when what the proxy has read is the same this far apart. */
const STABLE_MS = 250;

describe('slicer toxic and --high-water (real redis-server)', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('one-byte slices count what holding them costs: the proxy stops reading the client long before a mark of bytes', async () => {
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      highWaterBytes: HIGH_WATER_BYTES,
      toxics: [{ type: 'slicer', stream: 'upstream', attributes: { average_size: 1, delay: 1000 } }],
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
    });
    const s = await rawSocket(p.host!, p.port!);
    s.on('error', () => undefined);
    try {
      s.write(`*3\r\n$3\r\nSET\r\n$9\r\nslice:big\r\n$${VALUE_BYTES}\r\n`);
      s.write(Buffer.alloc(VALUE_BYTES, 0x61));
      // Reads pause: what the proxy has read stops moving (sampled STABLE_MS apart).
      let last = -1;
      await vi.waitFor(
        () => {
          const read = p.stats().totals.bytesUp;
          const stable = read > 0 && read === last;
          last = read;
          expect(stable).toBe(true);
        },
        { timeout: 10_000, interval: STABLE_MS },
      );
      expect(last).toBeLessThan(READ_BOUND_BYTES);
    } finally {
      s.destroy();
      await p.close();
    }
  });
});
