/**
 * --warm-up / warmUpConnections: the start-up's own connections go through the proxy to Redis (one
 * PING each), finish before start() resolves, and leave nothing in the counters, the events or the
 * live connections; a warm-up that cannot reach Redis ends with a log line, not a failed start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCommands } from '../../src/redis/raw-command.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import type { TapEvent } from '../../src/stats/types.js';
import { startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { proxyClient } from './helpers.js';

const WARM = 120;
let redis: PrivateRedis;

/** Redis's own count of connections it accepted since it started. */
async function acceptedByRedis(): Promise<number> {
  const [info] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: redis.port! }, [['INFO', 'stats']]);
  return Number(/total_connections_received:(\d+)/.exec(info?.text ?? '')?.[1]);
}

beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('a warm-up at start', () => {
  it('makes its connections to Redis before start() resolves, then the counters and events start from zero', async () => {
    const before = await acceptedByRedis();
    const events: TapEvent[] = [];
    const logs: string[] = [];
    const onEvent = (e: TapEvent): number => events.push(e);
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      warmUpConnections: WARM,
      onEvent,
      log: (l) => logs.push(l),
    });
    try {
      // Each warm-up connection is one of Redis's; so are the INFO connection itself and the start-up probe's.
      const accepted = (await acceptedByRedis()) - before;
      expect(accepted).toBeGreaterThanOrEqual(WARM + 1);
      expect(accepted).toBeLessThanOrEqual(WARM + 2);
      expect(logs).toEqual([]);
      expect(events).toEqual([]);
      expect(p.stats().connections).toEqual({ active: 0, total: 0 });
      expect(p.stats().totals).toMatchObject({ commands: 0, replies: 0, roundTrips: 0 });
      const c = proxyClient(p);
      await c.connect();
      expect(await c.ping()).toBe('PONG');
      c.disconnect();
      expect(p.stats().totals.commands).toBeGreaterThanOrEqual(1);
      expect(events.filter((e) => e.type === 'command').length).toBe(p.stats().totals.commands);
      // The first client is conn 1 in the events (and so in a trace), not one past the warm-up's.
      expect(new Set(events.map((e) => e.conn))).toEqual(new Set([1]));
    } finally {
      await p.close();
    }
  });

  it("after the hop measurement (compensation auto), the first client is connection 1 in /connections and the events", async () => {
    const events: TapEvent[] = [];
    const p = await startSingleNodeProxy({ upstream: redis.address, onEvent: (e) => void events.push(e), log: () => undefined });
    try {
      const c = proxyClient(p);
      await c.connect();
      expect(await c.ping()).toBe('PONG');
      expect(p.connections().map((x) => x.id)).toEqual([1]);
      c.disconnect();
      expect(new Set(events.map((e) => e.conn))).toEqual(new Set([1]));
    } finally {
      await p.close();
    }
  });

  it('with Redis down: a log line names what stopped it, and the proxy starts', async () => {
    const down = await startPrivateRedis();
    const address = down.address;
    await down.stop();
    const logs: string[] = [];
    const p = await startSingleNodeProxy({ upstream: address, compensationUs: { up: 0, down: 0 }, warmUpConnections: WARM, log: (l) => logs.push(l) });
    try {
      expect(logs.join('\n')).toMatch(/warm-up stopped after 0 of 120 connections: /);
      expect(p.stats().connections.active).toBe(0);
    } finally {
      await p.close();
    }
  });

  // A bad count exits 2 naming the flag: test/hardening/cli-flags.test.ts.
  it('the CLI: --warm-up runs before the listening line', async () => {
    const before = await acceptedByRedis();
    const cli = await startCliProxy(['--upstream', redis.address, '--compensate', 'off', '--warm-up', '60']);
    try {
      // Beside the warm-up's 60: the INFO connection, the start-up probe's, the start's dial (is Redis
      // down? refusal-watch.ts) and the CLI's own check of the upstream.
      const accepted = (await acceptedByRedis()) - before;
      expect(accepted).toBeGreaterThanOrEqual(60 + 1);
      expect(accepted).toBeLessThanOrEqual(60 + 4);
    } finally {
      await cli.stop();
    }
  });
});
