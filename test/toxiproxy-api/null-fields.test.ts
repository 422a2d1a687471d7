import { afterAll, beforeAll, expect, it } from 'vitest';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';

/**
 * Bodies read as Go's decoder reads them (checked against toxiproxy-server 2.12). A null field of a
 * proxy body is left as it was: on create `"enabled": null` is the default true, on update a null
 * listen, upstream or enabled changes nothing (they were 400s: "enabled: expected true or false"); so
 * does a toxic update's null toxicity, attributes or attribute (a null latency reset it to 0). A
 * body of null is an empty one, and keys match their fields in any case.
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

it('a body of null is an empty one, as Go decodes null into a struct: updates change nothing, a create lacks its name', async () => {
  expect((await post('/proxies', { name: 'z', listen: '127.0.0.1:0', upstream: '127.0.0.1:6379', enabled: false })).status).toBe(201);
  expect((await post('/proxies/z/toxics', { type: 'latency', name: 'l', attributes: { latency: 7 } })).status).toBe(200);
  // Each was a 400 "expected a JSON object"; toxiproxy 2.12 answers these.
  expect(await post('/proxies/z', null)).toEqual({ status: 200, body: { name: 'z', listen: '127.0.0.1:0', upstream: '127.0.0.1:6379', enabled: false, toxics: [expect.objectContaining({ name: 'l' })] } });
  expect(await post('/proxies/z/toxics/l', null)).toEqual({ status: 200, body: { name: 'l', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 7, jitter: 0 } } });
  expect(await post('/populate', null)).toEqual({ status: 201, body: { proxies: null } });
  expect(await post('/proxies', null)).toEqual({ status: 400, body: { error: 'missing required field: name', status: 400 } });
});

it('keys in any case, as Go matches them to fields: Toxiproxy.Net (RestSharp) posts PascalCase', async () => {
  // Each was ignored as an unknown key: "missing required field: name", a toxic with no type.
  const made = await post('/proxies', { Name: 'pc', Listen: '127.0.0.1:0', Upstream: '127.0.0.1:6379', Enabled: false });
  expect(made).toEqual({ status: 201, body: { name: 'pc', listen: '127.0.0.1:0', upstream: '127.0.0.1:6379', enabled: false, toxics: [] } });
  const toxic = await post('/proxies/pc/toxics', { Type: 'latency', Name: 'L', Stream: 'upstream', Toxicity: 0.5, Attributes: { Latency: 7, JITTER: 2 } });
  expect(toxic).toEqual({ status: 200, body: { name: 'L', type: 'latency', stream: 'upstream', toxicity: 0.5, attributes: { latency: 7, jitter: 2 } } });
  const updated = await post('/proxies/pc/toxics/L', { Toxicity: 1, Attributes: { latency: 9 } });
  expect(updated.body).toMatchObject({ toxicity: 1, attributes: { latency: 9, jitter: 2 } });
  // A key given twice is the last, in whatever case; the long s folds to s, as in Go (checked against 2.12).
  const twice = await post('/proxies/pc/toxics', { type: 'limit_data', name: 'a', NAME: 'b', attributes: { bytes: 1, BYTES: 2 } });
  expect(twice.body).toMatchObject({ name: 'b', attributes: { bytes: 2 } });
  expect((await post('/proxies/pc/toxics', { type: 'noop', name: 'n', toxicity: 1, TOXICITY: 0.25, \u017Ftream: 'upstream' })).body).toMatchObject({ toxicity: 0.25, stream: 'upstream' });
  const populated = await post('/populate', [{ NAME: 'pp', UPSTREAM: '127.0.0.1:6379', enabled: false }]);
  expect(populated).toEqual({ status: 201, body: { proxies: [{ name: 'pp', listen: '127.0.0.1:0', upstream: '127.0.0.1:6379', enabled: false, toxics: [] }] } });
});
