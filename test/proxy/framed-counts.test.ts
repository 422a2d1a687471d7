/**
 * The same traffic through an unframed proxy and through one with a frame stage that passes
 * everything (every connection framed, as in cluster mode): the tap counts the same, and on the
 * framed proxy each byte is framed once per direction (by the frame chain, not again by the tap).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { passAll, proxyClient } from './helpers.js';
import { spyOnFramers } from '../tap/framer-spy.js';

const WAIT = { timeout: 5000, interval: 5 };

/** A session of every kind the tap follows, on RESP2 and RESP3 clients. */
async function traffic(proxy: RedisRttProxy, protocol: 2 | 3): Promise<void> {
  proxy.resetStats();
  const c = proxyClient(proxy, { protocol });
  const sub = proxyClient(proxy, { protocol });
  await Promise.all([c.connect(), sub.connect()]);
  const p = c.pipeline();
  for (let i = 0; i < 200; i++) p.set(`k${i}`, 'x'.repeat(i * 7)).get(`k${i}`);
  await p.exec();
  await c.multi().incr('n').lpush('n', 'a').get('n').exec();
  await c.blpop('empty', 0.01);
  await sub.subscribe('a', 'b');
  await sub.psubscribe('p*');
  const got = new Promise<void>((resolve) => {
    let n = 0;
    sub.on('message', () => ++n === 3 && resolve());
  });
  for (let i = 0; i < 3; i++) await c.publish('a', `m${i}`);
  await got;
  await sub.unsubscribe('a', 'b');
  await sub.punsubscribe('p*');
  await c.ping();
  await vi.waitUntil(() => proxy.stats().connections.active === 2 && settled(proxy), WAIT);
  c.disconnect();
  sub.disconnect();
  await vi.waitUntil(() => proxy.stats().connections.active === 0, WAIT);
}

function settled(proxy: RedisRttProxy): boolean {
  return proxy.connections().every((c) => c.outstanding === 0);
}

/**
 * Totals that depend neither on timing nor on values Redis makes up (bytesDown: HELLO's client id,
 * INCR's count; chunksDown: a framed connection hands replies on a frame per chunk).
 */
function counts(proxy: RedisRttProxy): unknown {
  const t = proxy.stats().totals;
  const perCommand = Object.fromEntries(Object.entries(proxy.stats().commands).map(([k, v]) => [k, [v.count, v.errors]]));
  return {
    commands: t.commands,
    replies: t.replies,
    pushes: t.pushes,
    roundTrips: t.roundTrips,
    maxDepth: t.maxDepth,
    flights: t.flights,
    errorReplies: t.errorReplies,
    blockingCommands: t.blockingCommands,
    bytesUp: t.bytesUp,
    unparsedBytes: t.unparsedBytes,
    depthHistogram: t.depthHistogram,
    perCommand,
  };
}

describe('a framed proxy counts what an unframed one counts, framing each byte once', () => {
  let redis: PrivateRedis;
  let plain: RedisRttProxy;
  let staged: RedisRttProxy;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const options = { upstream: redis.address, link: { rttUs: 200 }, compensationUs: { up: 0, down: 0 } };
    plain = await startSingleNodeProxy(options);
    staged = await startSingleNodeProxy({ ...options, stages: [passAll] });
  });
  afterAll(async () => {
    await plain?.close();
    await staged?.close();
    await redis?.stop();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Bytes the proxy's framers were handed while `run` ran. */
  async function framed(run: () => Promise<void>): Promise<{ requests: number; replies: number }> {
    const n = spyOnFramers();
    await run();
    vi.restoreAllMocks();
    return n;
  }

  for (const protocol of [2, 3] as const) {
    it(`RESP${protocol}: the same counts, and every byte framed once per direction`, async () => {
      const a = await framed(() => traffic(plain, protocol));
      const plainCounts = counts(plain);
      const b = await framed(() => traffic(staged, protocol));
      const stagedCounts = counts(staged);
      expect(stagedCounts).toEqual(plainCounts);
      const t = staged.stats().totals;
      expect(t.commands).toBeGreaterThan(400);
      expect(t.pushes).toBe(3);
      // Each proxy frames what crossed it once per direction: exactly the bytes its tap counted.
      const p = plain.stats().totals;
      expect(a).toEqual({ requests: p.bytesUp, replies: p.bytesDown });
      expect(b).toEqual({ requests: t.bytesUp, replies: t.bytesDown });
    });
  }
});
