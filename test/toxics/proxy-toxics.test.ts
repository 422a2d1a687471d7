import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ConfigError } from '../../src/errors.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

/** Toxics on a plain `startSingleNodeProxy`: the option, addToxic/removeToxic, /stats, /metrics, the control endpoint. */
let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('startSingleNodeProxy({ toxics })', () => {
  it('applies toxics from the start, counts them in stats and metrics, and adds/removes them live', async () => {
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      control: '127.0.0.1:0',
      log: () => undefined,
      toxics: [{ type: 'redis_error', attributes: { commands: ['GET'], error: 'READONLY You can\'t write against a read only replica.' } }],
    });
    const c = new Redis({ host: p.host, port: p.port, maxRetriesPerRequest: 0 });
    try {
      expect(await c.set('k', 'v')).toBe('OK');
      await expect(c.get('k')).rejects.toThrow(/^READONLY/);
      expect(p.stats().toxics).toEqual([{ name: 'redis_error_downstream', type: 'redis_error', stream: 'downstream', applications: 1 }]);
      const base = `http://${p.controlAddress}`;
      expect(await (await fetch(`${base}/metrics`)).text()).toContain(
        'redis_rtt_toxic_applications_total{toxic="redis_error_downstream",type="redis_error",stream="downstream"} 1',
      );
      expect(() => p.addToxic({ type: 'redis_error', attributes: { error: 'ERR x' } })).toThrow(ConfigError);
      expect(p.removeToxic('redis_error_downstream')).toBe(true);
      expect(p.removeToxic('redis_error_downstream')).toBe(false);
      expect(await c.get('k')).toBe('v');
      // The control endpoint takes the same JSON.
      const add = await fetch(`${base}/toxics`, { method: 'POST', body: JSON.stringify({ type: 'redis_error', name: 'e', attributes: { keys: 'k', error: 'BUSY x' } }) });
      expect(add.status).toBe(200);
      await expect(c.get('k')).rejects.toThrow(/^BUSY x/);
      expect((await fetch(`${base}/toxics`, { method: 'POST', body: '{"type":"latency","attributes":{"latency":"1"}}' })).status).toBe(400);
      // A misspelled key is refused, as by --toxic, not run as a latency of 0.
      const typo = await fetch(`${base}/toxics`, { method: 'POST', body: '{"type":"latency","attributes":{"latncy":1}}' });
      expect([typo.status, await typo.text()]).toEqual([400, expect.stringContaining('attributes.latncy')]);
      expect((await fetch(`${base}/toxics/e`, { method: 'PATCH', body: '{"toxcity":0.5}' })).status).toBe(400);
      expect((await fetch(`${base}/toxics`, { method: 'POST', body: '{"type":"redis_error","name":"e","attributes":{"error":"x"}}' })).status).toBe(409);
      const patched = (await (await fetch(`${base}/toxics/e`, { method: 'PATCH', body: JSON.stringify({ attributes: { error: 'TRYAGAIN later' } }) })).json()) as { attributes: { error: string } };
      expect(patched.attributes.error).toBe('TRYAGAIN later');
      await expect(c.get('k')).rejects.toThrow(/^TRYAGAIN later/);
      expect((await fetch(`${base}/toxics/e`, { method: 'DELETE' })).status).toBe(204);
      expect((await fetch(`${base}/toxics/e`, { method: 'DELETE' })).status).toBe(404);
      // Any name, as toxiproxy takes; "." and ".." by ?name= (fetch drops them from a path, as a browser does).
      for (const name of ['.', '..']) {
        expect((await fetch(`${base}/toxics`, { method: 'POST', body: JSON.stringify({ type: 'latency', name }) })).status).toBe(200);
        expect((await fetch(`${base}/toxics?name=${encodeURIComponent(name)}`, { method: 'DELETE' })).status).toBe(204);
        expect((await fetch(`${base}/toxics?name=${encodeURIComponent(name)}`, { method: 'DELETE' })).status).toBe(404);
      }
      expect(p.toxics()).toEqual([]);
      expect((await fetch(`${base}/toxics`, { method: 'DELETE' })).status).toBe(400);
      expect(await c.get('k')).toBe('v');
    } finally {
      c.disconnect();
      await p.close();
    }
  });

  it('with toxics: [] a Redis-aware toxic added later reaches a connection already open', async () => {
    const p = await startSingleNodeProxy({ upstream: redis.address, compensationUs: { up: 0, down: 0 }, log: () => undefined, toxics: [] });
    const c = new Redis({ host: p.host, port: p.port, maxRetriesPerRequest: 0 });
    try {
      expect(await c.ping()).toBe('PONG');
      p.addToxic({ type: 'failover', attributes: { duration: 60_000, mode: 'masterdown' } });
      await expect(c.ping()).rejects.toThrow(/^MASTERDOWN/);
    } finally {
      c.disconnect();
      await p.close();
    }
  });

  it("failover loading: a new ioredis connection connects and passes its ready check as on a loading Redis; its commands get LOADING", async () => {
    const p = await startSingleNodeProxy({
      upstream: redis.address,
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
      toxics: [{ type: 'failover', attributes: { duration: 60_000, mode: 'loading' } }],
    });
    // ioredis sends INFO before its first command (enableReadyCheck) and, by default, CLIENT SETNAME with a name.
    const c = new Redis({ host: p.host, port: p.port, maxRetriesPerRequest: 0, lazyConnect: true, connectionName: 'app' });
    try {
      await c.connect();
      expect(c.status).toBe('ready');
      await expect(c.get('k')).rejects.toThrow(/^LOADING Redis is loading/);
      await expect(c.ping()).rejects.toThrow(/^LOADING/);
      expect(await c.client('GETNAME')).toBe('app');
    } finally {
      c.disconnect();
      await p.close();
    }
  });

  it('refuses a bad toxic before listening, naming the field', async () => {
    await expect(startSingleNodeProxy({ upstream: redis.address, toxics: [{ type: 'latency', attributes: { latency: 'slow' } }] })).rejects.toMatchObject({
      flag: 'attributes.latency',
    });
  });
});
