/**
 * `redis-rtt server`'s dashboard at /ui: the page of one proxy (its toxics through the toxiproxy
 * API), a list when there are several, its event stream with real traffic through a real
 * redis-server, the token cookie kept across the redirect, and closing the server ends the stream.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';
import type { DashboardEvent } from '../../src/dashboard/types.js';
import { controlRequest } from '../hardening/helpers/http.js';
import { client } from '../proxy/helpers.js';

const TOKEN = 'ui-t0k';
let redis: PrivateRedis;
let server: ToxiproxyServer;

/** An open /ui/events stream: the events so far, once the first came. */
function openEvents(path: string, cookie: string): Promise<{ events: DashboardEvent[]; res: http.IncomingMessage }> {
  const [host, port] = server.api.split(':');
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port: Number(port), path, headers: { cookie }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      const events: DashboardEvent[] = [];
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const m = /^event: stats\ndata: (.*)$/s.exec(text.slice(0, end));
          text = text.slice(end + 2);
          if (m) events.push(JSON.parse(m[1]!) as DashboardEvent);
        }
        if (events.length > 0) resolve({ events, res });
      });
    });
    req.on('error', reject);
  });
}

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

  it('streams the proxy\'s traffic and toxics', async () => {
    const listen = server.proxies.get('cache').listen;
    const add = await controlRequest(server.api, 'POST', '/proxies/cache/toxics', { token: TOKEN, body: '{"type":"latency","attributes":{"latency":1}}' });
    expect(add.status).toBe(200);
    const c = client({ host: listen.split(':')[0], port: Number(listen.split(':')[1]) });
    await c.connect();
    // The window starts with the stream: commands sent once it is open count.
    const { events, res } = await openEvents('/ui/events?proxy=cache', cookie);
    for (let i = 0; i < 5; i++) await c.set('k', String(i));
    const event = await vi.waitFor(
      () => {
        const e = events.find((x) => x.commands.some((cmd) => cmd.name === 'SET' && cmd.count === 5));
        if (!e) throw new Error('no event with the 5 SETs yet');
        return e;
      },
      { timeout: 10_000, interval: 20 },
    );
    c.disconnect();
    expect(event.toxics.map((t) => [t.name, t.type])).toEqual([['latency_downstream', 'latency']]);
    const ended = new Promise<void>((resolve) => res.on('close', () => resolve()));
    await server.proxies.serial(() => server.proxies.create({ name: 'second', listen: '127.0.0.1:0', upstream: redis.address }));
    const list = await controlRequest(server.api, 'GET', '/ui', { headers: { cookie } });
    expect(list.body).toContain('href="/ui?proxy=cache"');
    expect(list.body).toContain('href="/ui?proxy=second"');
    await server.close();
    await ended;
  });
});
