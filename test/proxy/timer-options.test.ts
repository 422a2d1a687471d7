/**
 * connectTimeoutMs and idleTimeoutMs are timers, and Node's timers take at most 2^31 - 1 ms: a
 * longer one is set to 1 ms. A connectTimeoutMs of 0, under 1 or past that limit was accepted and
 * closed every client the proxy took ("upstream did not answer within 0 ms") against a Redis that
 * answers at once; idleTimeoutMs past it warned (TimeoutOverflowWarning) on every connection. Each
 * is now refused with a ConfigError naming the option, and the limit itself still proxies.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, startPrivateRedis, startProxy, type PrivateRedis, type ProxyOptions } from '../../src/index.js';

const NODE_TIMER_LIMIT_MS = 2 ** 31 - 1;
let redis: PrivateRedis;

beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

async function refusal(options: Partial<ProxyOptions>): Promise<ConfigError | undefined> {
  try {
    const p = await startProxy({ upstream: redis.address, log: () => undefined, ...options });
    await p.close();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  return undefined;
}

describe('the timeout options are refused outside what a Node timer can wait', () => {
  it('connectTimeoutMs: 0, under 1 ms, or past 2^31 - 1 ms, naming the option', async () => {
    for (const value of [0, 0.5, NODE_TIMER_LIMIT_MS + 1, 1e11]) {
      const e = await refusal({ connectTimeoutMs: value });
      expect(e, String(value)).toBeInstanceOf(ConfigError);
      expect({ flag: e?.flag, value: e?.value }).toEqual({ flag: 'connectTimeoutMs', value });
      expect(e?.accepts).toBe(`milliseconds, from 1 to ${NODE_TIMER_LIMIT_MS} (Node's timer limit)`);
    }
  });

  it('idleTimeoutMs past 2^31 - 1 ms, naming the option', async () => {
    const e = await refusal({ idleTimeoutMs: NODE_TIMER_LIMIT_MS + 1 });
    expect({ flag: e?.flag, accepts: e?.accepts }).toEqual({ flag: 'idleTimeoutMs', accepts: `a whole number from 0 to ${NODE_TIMER_LIMIT_MS}, 0 for off` });
  });

  it('at the limit, both still let a client through to Redis', async () => {
    const limits = { connectTimeoutMs: NODE_TIMER_LIMIT_MS, idleTimeoutMs: NODE_TIMER_LIMIT_MS };
    await using proxy = await startProxy({ upstream: redis.address, ...limits, log: () => undefined });
    const client = new Redis(`redis://${proxy.address}`, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });
});
