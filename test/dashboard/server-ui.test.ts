/**
 * `redis-rtt server`'s dashboard at /ui: the page of one proxy (its toxics through the toxiproxy
 * API), a list when there are several, its event stream with real traffic through a real
 * redis-server, the token cookie kept across the redirect, a deleted proxy's stream ended (a proxy made again under
 * its name is another), and closing the server ends the stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';
import { controlRequest } from '../hardening/helpers/http.js';
import { client } from '../proxy/helpers.js';
import { openEvents } from './events-client.js';

const TOKEN = 'ui-t0k';
let redis: PrivateRedis;
let server: ToxiproxyServer;

beforeAll(async () => {
  redis = await startPrivateRedis();
  server = await startToxiproxyServer({
    api: '127.0.0.1:0',
    apiToken: TOKEN,
    log: () => undefined,
    seed: 1,
    config: [{ name: 'cache', listen: '127.0.0.1:0', upstream: redis.address }],
  });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

describe('redis-rtt server /ui', () => {
  let cookie = '';

  it('?token= sets the cookie and redirects to /ui with the rest of the query', async () => {
    const r = await controlRequest(server.api, 'GET', `/ui?proxy=cache&token=${TOKEN}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/ui?proxy=cache');
    const set = r.headers['set-cookie']![0]!;
    expect(set).toMatch(/; HttpOnly; SameSite=Strict$/);
    cookie = set.split(';')[0]!;
    expect((await controlRequest(server.api, 'GET', `/ui?proxy=cache&token=wrong`)).status).toBe(401);
  });

  it('serves the page of a proxy: its toxics through the API, no link controls', async () => {
    const r = await controlRequest(server.api, 'GET', '/ui?proxy=cache', { headers: { cookie } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    const config = JSON.parse(/<script type="application\/json" id="dashboard-config">(.*?)<\/script>/.exec(r.body)![1]!) as Record<string, unknown>;
    expect(config).toMatchObject({ events: '/ui/events?proxy=cache', link: null, toxics: '/proxies/cache/toxics' });
    expect((await controlRequest(server.api, 'GET', '/ui?proxy=nope', { headers: { cookie } })).status).toBe(404);
  });

  it('a proxy named . or .. gets its toxics read only: the browser would send /proxies/./toxics as /proxies/toxics', async () => {
    for (const name of ['.', '..']) {
      await server.proxies.serial(() => server.proxies.create({ name, listen: '127.0.0.1:0', upstream: redis.address }));
      const r = await controlRequest(server.api, 'GET', `/ui?proxy=${encodeURIComponent(name)}`, { headers: { cookie } });
      expect(r.status).toBe(200);
      const config = JSON.parse(/<script type="application\/json" id="dashboard-config">(.*?)<\/script>/.exec(r.body)![1]!) as Record<string, unknown>;
      expect(config).toMatchObject({ events: `/ui/events?proxy=${encodeURIComponent(name)}`, link: null, toxics: null });
      await server.proxies.serial(() => server.proxies.remove(name));
    }
  });

  it('a proxy deleted and made again under its name: its pages lose the old one\'s stream and get the new one\'s', async () => {
    const made = (body: object): Promise<unknown> => server.proxies.serial(() => server.proxies.create({ name: 'again', listen: '127.0.0.1:0', upstream: redis.address, ...body }));
    await made({});
    server.proxies.get('again').addToxic({ type: 'latency', name: 'old_one', attributes: { latency: 1 } });
    const old = await openEvents(server.api, '/ui/events?proxy=again', { cookie });
    expect(old.events[0]!.toxics.map((t) => t.name)).toEqual(['old_one']);
    await server.proxies.serial(() => server.proxies.remove('again'));
    await old.ended;
    await expect(openEvents(server.api, '/ui/events?proxy=again', { cookie })).rejects.toThrow(/status 404/);
    await made({});
    server.proxies.get('again').addToxic({ type: 'latency', name: 'new_one', attributes: { latency: 1 } });
    const renewed = await openEvents(server.api, '/ui/events?proxy=again', { cookie });
    expect(renewed.events[0]!.toxics.map((t) => t.name)).toEqual(['new_one']);
    await server.proxies.serial(() => server.proxies.remove('again'));
    await renewed.ended;
  });

  it('streams the proxy\'s traffic and toxics', async () => {
    const listen = server.proxies.get('cache').listen;
    const add = await controlRequest(server.api, 'POST', '/proxies/cache/toxics', { token: TOKEN, body: '{"type":"latency","attributes":{"latency":1}}' });
    expect(add.status).toBe(200);
    const c = client({ host: listen.split(':')[0], port: Number(listen.split(':')[1]) });
    await c.connect();
    // The window starts with the stream: commands sent once it is open count.
    const stream = await openEvents(server.api, '/ui/events?proxy=cache', { cookie });
    for (let i = 0; i < 5; i++) await c.set('k', String(i));
    const event = await stream.next((e) => e.commands.some((cmd) => cmd.name === 'SET' && cmd.count === 5));
    c.disconnect();
    expect(event.toxics.map((t) => [t.name, t.type])).toEqual([['latency_downstream', 'latency']]);
    await server.proxies.serial(() => server.proxies.create({ name: 'second', listen: '127.0.0.1:0', upstream: redis.address }));
    const list = await controlRequest(server.api, 'GET', '/ui', { headers: { cookie } });
    expect(list.body).toContain('href="/ui?proxy=cache"');
    expect(list.body).toContain('href="/ui?proxy=second"');
    await server.close();
    await stream.ended;
  });
});
