import { afterAll, beforeAll, expect, it } from 'vitest';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';

/**
 * A null field of a proxy body is left as it was, as Go's decoder leaves it (checked against
 * toxiproxy-server 2.12): on create `"enabled": null` is the default true, on update a null
 * listen, upstream or enabled changes nothing. They were 400s ("enabled: expected true or false").
 */
let server: ToxiproxyServer;
beforeAll(async () => {
  server = await startToxiproxyServer({ api: '127.0.0.1:0', log: () => undefined, seed: 1 });
});
afterAll(async () => {
  await server?.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`http://${server.api}${path}`, { method: 'POST', body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

it('create: a null enabled is the default (true), a null listen the default address', async () => {
  const r = await post('/proxies', { name: 'n', listen: null, upstream: '127.0.0.1:6379', enabled: null });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ name: 'n', upstream: '127.0.0.1:6379', enabled: true });
  expect(r.body['listen']).toMatch(/^127\.0\.0\.1:\d+$/);
});

it('update: null fields leave the proxy as it was', async () => {
  const made = await post('/proxies', { name: 'u', listen: '127.0.0.1:0', upstream: '127.0.0.1:6379', enabled: false });
  expect(made.status).toBe(201);
  const r = await post('/proxies/u', { enabled: null, upstream: null, listen: null });
  expect(r).toEqual({ status: 200, body: { name: 'u', listen: '127.0.0.1:0', upstream: '127.0.0.1:6379', enabled: false, toxics: [] } });
});
