/**
 * The dashboard's streams on a real proxy's control endpoint (a real redis-server behind it): the
 * first stream starts the window's timer, the last one to leave stops it, 1000 streams that come
 * and go leave none open and the heap as it was, closing the endpoint ends open streams, and a bad
 * link value through the API changes nothing.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { ControlServer, type ControlHandlers } from '../../src/proxy/control.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { controlRequest } from '../hardening/helpers/http.js';
import { proxyClient } from '../proxy/helpers.js';
import { openEvents } from './events-client.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

let redis: PrivateRedis;
let proxy: RedisRttProxy;
let control: ControlServer;

function handlers(p: RedisRttProxy): ControlHandlers {
  return {
    stats: () => p.stats(),
    commandLatencyUs: () => p.commandLatencyUs(),
    metrics: () => '',
    setLink: (u) => ({ link: p.setLink(u), warnings: [] }),
    linkOf: () => p.link(),
    statsOf: () => p.stats(),
    reset: () => p.resetStats(),
    connections: () => p.connections(),
  };
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  proxy = await startProxy({ upstream: redis.address, listen: '127.0.0.1:0', compensationUs: { up: 0, down: 0 }, log: () => {} });
  control = new ControlServer(handlers(proxy));
  await control.listen({ kind: 'tcp', host: '127.0.0.1', port: 0 });
}, 30_000);

afterAll(async () => {
  await control?.close();
  await proxy?.close();
  await redis?.stop();
});

describe('the dashboard\'s event streams', () => {
  it('run the window only while a stream is open, and start it afresh for the next', async () => {
    expect(control.streams.running).toBe(false);
    const c = proxyClient(proxy);
    await c.connect();
    for (let i = 0; i < 20; i++) await c.set('k', String(i));
    const a = await openEvents(control.address);
    expect(control.streams.running).toBe(true);
    // The first event of a window has nothing to subtract from: no old traffic shows as a rate.
    expect(a.events[0]).toMatchObject({ windowMs: 0, commands: [], rates: { commands: 0 } });
    for (let i = 0; i < 10; i++) await c.get('k');
    const later = await a.next((e) => e.commands.some((x) => x.name === 'GET' && x.count === 10));
    // The SETs before the stream opened are not in its window.
    expect(later.commands.map((x) => x.name)).not.toContain('SET');
    expect(later.windowMs).toBeGreaterThan(0);
    c.disconnect();
    a.req.destroy();
    await vi.waitFor(() => expect(control.streams.running).toBe(false), { timeout: 5000, interval: 10 });
    expect(control.streams.size).toBe(0);
  });

  it('POST /reset starts the open window from zero, also when more came after it than before by the next reading', async () => {
    const c = proxyClient(proxy);
    await c.connect();
    expect((await controlRequest(control.address, 'POST', '/reset')).status).toBe(200);
    const a = await openEvents(control.address);
    for (let i = 0; i < 3; i++) await c.get('k');
    await a.next((e) => e.commands.some((x) => x.name === 'GET') && e.windowMs > 0);
    const resetAtMs = Date.now();
    expect((await controlRequest(control.address, 'POST', '/reset')).status).toBe(200);
    // Within a tick: every counter passes its count before the reset, so none is seen to fall.
    await c.pipeline(Array.from({ length: 20 }, () => ['incr', 'n'])).exec();
    const after = await a.next((e) => e.commands.some((x) => x.name === 'INCR'));
    // The window is the time since the reset (at most; +2: each side rounds to a millisecond); it went on from the stream's start.
    expect(after.windowMs).toBeLessThanOrEqual(after.atMs - resetAtMs + 2);
    expect(after.commands.map((x) => [x.name, x.count])).toEqual([['INCR', 20]]);
    c.disconnect();
    a.req.destroy();
    await vi.waitFor(() => expect(control.streams.running).toBe(false), { timeout: 5000, interval: 10 });
  });

  it('1000 streams that connect and go away leave none open and the heap within 5 MiB', async () => {
    const churn = async (n: number): Promise<void> => {
      for (let done = 0; done < n; done += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, () => openEvents(control.address)));
        for (const s of batch) s.req.destroy();
      }
    };
    await churn(100);
    await vi.waitFor(() => expect(control.streams.size).toBe(0), { timeout: 10_000, interval: 10 });
    gc();
    const before = process.memoryUsage().heapUsed;
    await churn(1000);
    await vi.waitFor(() => expect(control.streams.size).toBe(0), { timeout: 10_000, interval: 10 });
    expect(control.streams.running).toBe(false);
    gc();
    const growthMiB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    expect(growthMiB).toBeLessThan(5);
  }, 120_000);

  it('a bad link value is refused with the key named, and the link stays as it was', async () => {
    proxy.setLink({ rttUs: 4000 });
    const before = proxy.link();
    for (const body of ['{"rttUs":-1}', '{"rttUs":"fast"}', '{"jitterUs":1e12}', '{"bandwidthBps":0.2}', '{"preset":"moon"}', '{"rttUs":1000,"upUs":-5}']) {
      const r = await controlRequest(control.address, 'PUT', '/link', { body });
      expect(r.status, body).toBe(400);
      expect((JSON.parse(r.body) as { error: string }).error, body).toMatch(/rttUs|upUs|jitterUs|bandwidthBps|preset/);
      expect(proxy.link(), body).toEqual(before);
    }
  });

  it('closing the endpoint ends every open stream, and a new one is refused', async () => {
    const other = new ControlServer(handlers(proxy));
    await other.listen({ kind: 'tcp', host: '127.0.0.1', port: 0 });
    const streams = await Promise.all([openEvents(other.address), openEvents(other.address)]);
    await other.close();
    await Promise.all(streams.map((s) => s.ended));
    expect(other.streams.size).toBe(0);
    expect(other.streams.running).toBe(false);
  });
});
