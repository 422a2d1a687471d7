/**
 * proxy.updateToxic(name, change) from a JavaScript caller: a change that is not an object is a
 * ConfigError (it threw a TypeError reading `.attributes` of null), and the toxic is left as it was.
 * A key that is no toxic's, added or updated, is refused as startProxy({ toxics }) refuses it: it was
 * ignored, and `{ latncy: 5 }` ran a latency of 0.
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

  it.each([
    [{ type: 'latency', attributes: { latncy: 5 } }, 'attributes.latncy'],
    [{ type: 'latency', toxcity: 0.5, attributes: { latency: 5 } }, 'toxcity'],
  ])('addToxic refuses %j with a ConfigError naming the key, and adds nothing', (toxic, flag) => {
    expect(() => proxy.addToxic(toxic)).toThrow(expect.objectContaining({ flag }));
    expect(proxy.toxics()).toEqual([]);
  });

  it.each([
    [{ attributes: { latncy: 5 } }, 'attributes.latncy'],
    [{ toxcity: 0.5 }, 'toxcity'],
  ])('updateToxic refuses %j with a ConfigError naming the key, the toxic unchanged', (change, flag) => {
    const before = proxy.addToxic({ name: 'slow', type: 'latency', attributes: { latency: 2 } });
    try {
      expect(() => proxy.updateToxic('slow', change as never)).toThrow(expect.objectContaining({ flag }));
      expect(proxy.toxics()).toEqual([before]);
      // A toxic as the proxy lists it (its name, type and stream too) is still a change it takes.
      expect(proxy.updateToxic('slow', { ...before, attributes: { latency: 3 } } as never)?.attributes).toEqual({ latency: 3, jitter: 0 });
    } finally {
      proxy.removeToxic('slow');
    }
  });
});
