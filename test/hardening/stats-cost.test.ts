import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { median } from '../proxy/helpers.js';
import { encodeRequest } from './helpers/resp-gen.js';

/** 40 ordinary commands: what a real application sends over a few minutes. */
const COMMANDS: string[][] = [
  ['PING'], ['SET', 'a', '1'], ['GET', 'a'], ['INCR', 'n'], ['DEL', 'x'], ['EXISTS', 'a'], ['TYPE', 'a'], ['TTL', 'a'],
  ['LPUSH', 'l', '1'], ['LPOP', 'l'], ['RPUSH', 'l', '1'], ['RPOP', 'l'], ['SADD', 's', '1'], ['SREM', 's', '1'],
  ['HSET', 'h', 'f', 'v'], ['HGET', 'h', 'f'], ['HDEL', 'h', 'f'], ['ZADD', 'z', '1', 'm'], ['ZREM', 'z', 'm'],
  ['MGET', 'a', 'b'], ['MSET', 'a', '1', 'b', '2'], ['APPEND', 'a', 'x'], ['STRLEN', 'a'], ['ECHO', 'x'],
  ['EXPIRE', 'a', '100'], ['PERSIST', 'a'], ['INCRBY', 'n', '2'], ['DECR', 'n'], ['LLEN', 'l'], ['SCARD', 's'],
  ['HLEN', 'h'], ['ZCARD', 'z'], ['GETSET', 'a', '2'], ['SETNX', 'q', '1'], ['DBSIZE'], ['TIME'], ['LASTSAVE'],
  ['RANDOMKEY'], ['LINDEX', 'l', '0'], ['HKEYS', 'h'],
];
/**
 * A snapshot runs on the proxy's only thread: while it runs, no byte of any connection moves, so
 * every scrape of /stats or /metrics, and the dashboard's four readings a second, add their own
 * duration to whatever is in flight. 12 ms is already 12 times a 1 ms link; what a snapshot takes
 * with these 40 names is in docs/measurements.md ("Histograms and recording").
 */
const SNAPSHOT_BOUND_MS = 12;

describe('what a stats snapshot costs the proxied traffic', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, log: () => undefined });
    const s = net.connect({ host: proxy.host!, port: proxy.port! });
    s.on('data', () => undefined);
    await new Promise<void>((r) => s.once('connect', () => r()));
    const batch = Buffer.concat(COMMANDS.map((c) => encodeRequest(c)));
    for (let i = 0; i < 200; i++) s.write(batch);
    await vi.waitUntil(() => proxy.stats().totals.replies >= 200 * COMMANDS.length, { timeout: 20_000, interval: 5 });
    s.destroy();
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  // Wall-clock figures on a shared 2-core machine: a run that lands in someone else's burst is tried again (a
  // retry, not a looser bound; a real regression fails every try).
  it(`a snapshot with ${COMMANDS.length} command names blocks the event loop for under ${SNAPSHOT_BOUND_MS} ms`, { retry: 2 }, () => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const s = proxy.stats();
      times.push(performance.now() - t0);
      expect(Object.keys(s.commands)).toHaveLength(COMMANDS.length);
    }
    console.log(`[figure] stats() with ${COMMANDS.length} command names: ${times.map((t) => t.toFixed(1)).join(' / ')} ms`);
    expect(median(times)).toBeLessThan(SNAPSHOT_BOUND_MS);
  });
});
