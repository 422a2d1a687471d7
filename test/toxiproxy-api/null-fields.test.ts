import { afterAll, beforeAll, expect, it } from 'vitest';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';

/**
 * A null field of a proxy body is left as it was, as Go's decoder leaves it (checked against
 * toxiproxy-server 2.12): on create `"enabled": null` is the default true, on update a null
 * listen, upstream or enabled changes nothing (they were 400s: "enabled: expected true or false"); so
 * does a toxic update's null toxicity, attributes or attribute (a null latency reset it to 0).
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

it('toxic update: a null toxicity, null attributes or a null attribute leave what was there; the rest still merges', async () => {
  expect((await post('/proxies', { name: 't', upstream: '127.0.0.1:6379' })).status).toBe(201);
  const made = await post('/proxies/t/toxics', { type: 'latency', name: 'l', toxicity: 0.5, attributes: { latency: 7, jitter: 2 } });
  expect(made.status).toBe(200);
  const was = { name: 'l', type: 'latency', stream: 'downstream', toxicity: 0.5, attributes: { latency: 7, jitter: 2 } };
  expect(await post('/proxies/t/toxics/l', { toxicity: null })).toEqual({ status: 200, body: was });
  expect(await post('/proxies/t/toxics/l', { attributes: null })).toEqual({ status: 200, body: was });
  // The latency was reset to its default, 0, by a null.
  expect(await post('/proxies/t/toxics/l', { attributes: { latency: null, jitter: 3 } })).toEqual({ status: 200, body: { ...was, attributes: { latency: 7, jitter: 3 } } });
  expect((await post('/proxies/t/toxics/l', { toxicity: 'x' })).status).toBe(400);
});
