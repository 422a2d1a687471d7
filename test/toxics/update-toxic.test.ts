/**
 * proxy.updateToxic(name, change) from a JavaScript caller: a change that is not an object is a
 * ConfigError (it threw a TypeError reading `.attributes` of null), and the toxic is left as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, startPrivateRedis, startProxy, type PrivateRedis, type RedisRttProxy } from '../../src/index.js';

let redis: PrivateRedis;
let proxy: RedisRttProxy;
beforeAll(async () => {
  redis = await startPrivateRedis();
  proxy = await startProxy({ upstream: redis.address, log: () => undefined });
});
afterAll(async () => {
  await proxy?.close();
  await redis?.stop();
});

describe('updateToxic', () => {
  it.each([null, 'latency=5', [5]])('refuses a change of %j with a ConfigError, the toxic unchanged', (change) => {
    const before = proxy.addToxic({ name: 'slow', type: 'latency', attributes: { latency: 2 } });
    try {
      let thrown: unknown;
      try {
        proxy.updateToxic('slow', change as never);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).flag).toBe('toxic');
      expect(proxy.toxics()).toEqual([before]);
    } finally {
      proxy.removeToxic('slow');
    }
  });

  it('still merges an object change, and answers undefined for a name it does not have', () => {
    proxy.addToxic({ name: 'slow', type: 'latency', attributes: { latency: 2 } });
    expect(proxy.updateToxic('slow', { attributes: { latency: 7 } })?.attributes).toEqual({ latency: 7, jitter: 0 });
    expect(proxy.updateToxic('nobody', { attributes: { latency: 7 } })).toBeUndefined();
    proxy.removeToxic('slow');
  });
});
