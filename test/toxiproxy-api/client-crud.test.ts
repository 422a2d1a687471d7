import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Toxiproxy, type ICreateToxicBody, type ToxicType } from 'toxiproxy-node-client';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/toxiproxy-api/toxiproxy-server.js';

/** toxiproxy-node-client 4.1.0 drives `redis-rtt server`: every call it makes, as it makes it. */
let redis: PrivateRedis;
let server: ToxiproxyServer;
let tp: Toxiproxy;
let base: string;

beforeAll(async () => {
  redis = await startPrivateRedis();
  server = await startToxiproxyServer({ api: '127.0.0.1:0', log: () => undefined, seed: 1 });
  base = `http://${server.api}`;
  tp = new Toxiproxy(base);
});
afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

const EVERY_TOXIC: [string, Record<string, unknown>, Record<string, unknown>][] = [
  ['latency', { latency: 100, jitter: 10 }, { latency: 0.1 }],
  ['bandwidth', { rate: 100 }, { rate: 50 }],
  ['slow_close', { delay: 100 }, { delay: 5 }],
  ['timeout', { timeout: 100 }, { timeout: 0 }],
  ['reset_peer', { timeout: 100 }, { timeout: 10 }],
  ['slicer', { average_size: 64, size_variation: 32, delay: 10 }, { delay: 20 }],
  ['limit_data', { bytes: 1000 }, { bytes: 2000 }],
  ['redis_error', { commands: ['GET'], error: 'LOADING Redis is loading' }, { error: 'BUSY busy' }],
  ['redis_latency', { commands: ['GET'], keys: 'user:*', latency: 1.5 }, { latency: 2 }],
  ['redis_drop', { commands: ['BLPOP'] }, { close: true }],
  ['failover', { duration: 1, mode: 'loading' }, { mode: 'masterdown' }],
];

describe('toxiproxy-node-client against redis-rtt server', () => {
  it('reads the version as text', async () => {
    const v = await tp.getVersion();
    expect(JSON.parse(v).version).toMatch(/^2\.\d+\.\d+\+redis-rtt\./);
    // toxiproxy's bytes: `{"version": "v2.12.0"}` and a newline (ours had no space after the colon).
    expect(v).toMatch(/^\{"version": "[^"]+"\}\n$/);
  });

  it('creates, lists, gets, updates (disable, enable) and removes a proxy', async () => {
    const proxy = await tp.createProxy({ name: 'crud', listen: 'localhost:0', upstream: redis.address });
    expect(proxy.enabled).toBe(true);
    expect(proxy.listen).toMatch(/^127\.0\.0\.1:\d+$/);
    const all = await tp.getAll();
    expect(Object.keys(all)).toContain('crud');
    const got = await tp.get('crud');
    expect(got.upstream).toBe(redis.address);
    const off = await got.update({ enabled: false, listen: got.listen, upstream: got.upstream });
    expect(off.enabled).toBe(false);
    const on = await off.update({ enabled: true, listen: got.listen, upstream: got.upstream });
    expect(on.enabled).toBe(true);
    expect(on.listen).toBe(got.listen);
    await on.remove();
    await expect(tp.get('crud')).rejects.toThrow(/404/);
  });

  it('adds, reads, updates and removes every toxic', async () => {
    const proxy = await tp.createProxy({ name: 'toxics', listen: '127.0.0.1:0', upstream: redis.address });
    for (const [type, attributes, update] of EVERY_TOXIC) {
      const body = { type: type as ToxicType, stream: 'upstream', toxicity: 0.5, attributes } as ICreateToxicBody<unknown>;
      const toxic = await proxy.addToxic(body);
      expect(toxic.name).toBe(`${type}_upstream`);
      expect(toxic.attributes).toMatchObject(attributes);
      const read = await proxy.getToxic(toxic.name);
      expect(read.toJson()).toEqual(toxic.toJson());
      const updated = await read.update({ attributes: update, toxicity: 1 } as never);
      expect(updated.attributes).toMatchObject({ ...attributes, ...update });
      expect(updated.toxicity).toBe(1);
      await updated.remove();
      await expect(proxy.getToxic(toxic.name)).rejects.toThrow(/404/);
    }
    await proxy.remove();
  });

  it("passes the client's own ToxicTypes tests: attributes come back as sent, what runs is `applied`", async () => {
    const proxy = await tp.createProxy({ name: 'types', listen: '127.0.0.1:0', upstream: redis.address });
    const sent: [string, Record<string, number>][] = [
      ['latency', { latency: 1000, jitter: 100 }],
      ['bandwidth', { rate: 1000 }],
      ['slow_close', { delay: 1000 }],
      ['timeout', { timeout: 5000 }],
      ['slicer', { average_size: 1000, delay: 1000, size_variation: 1000 }],
      ['reset_peer', { timeout: 1000 }],
      ['limit_data', { bytes: 42 }],
    ];
    for (const [type, attributes] of sent) {
      const toxic = await proxy.addToxic({ type: type as ToxicType, attributes } as ICreateToxicBody<unknown>);
      expect(toxic.attributes, type).toEqual(attributes);
      await toxic.remove();
    }
    // A variation of average_size or more could cut a piece at its own start: 999 is what runs, and
    // the slices still carry every byte.
    const slicer = (await (
      await fetch(`${base}/proxies/types/toxics`, { method: 'POST', body: '{"type":"slicer","attributes":{"average_size":100,"size_variation":100}}' })
    ).json()) as { attributes: object; applied: { attributes: object } };
    expect(slicer.attributes).toEqual({ average_size: 100, size_variation: 100, delay: 0 });
    expect(slicer.applied.attributes).toEqual({ average_size: 100, size_variation: 99, delay: 0 });
    const [host, port] = proxy.listen.split(':');
    const client = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await client.connect();
      await client.set('sliced', 'v'.repeat(5000));
      expect(await client.get('sliced')).toBe('v'.repeat(5000));
    } finally {
      client.disconnect();
    }
    await proxy.remove();
  });

  it('populates (creates and replaces) and resets (toxics gone, proxies enabled)', async () => {
    const made = await tp.populate([
      { name: 'p1', listen: '127.0.0.1:0', upstream: redis.address },
      { name: 'p2', listen: '127.0.0.1:0', upstream: redis.address, enabled: false },
    ]);
    expect(Object.keys(made).sort()).toEqual(['p1', 'p2']);
    expect(made['p2']!.enabled).toBe(false);
    await made['p1']!.addToxic({ type: 'latency', attributes: { latency: 1 } } as ICreateToxicBody<unknown>);
    await tp.reset();
    const after = await tp.getAll();
    expect(after['p2']!.enabled).toBe(true);
    const toxics = await (await fetch(`${base}/proxies/p1/toxics`)).json();
    expect(toxics).toEqual([]);
    await after['p1']!.remove();
    await after['p2']!.remove();
  });

  it('populate keeps an identical proxy (toxics and all) and replaces one whose upstream changed', async () => {
    const [first] = Object.values(await tp.populate([{ name: 'keep', listen: '127.0.0.1:0', upstream: redis.address }]));
    await first!.addToxic({ type: 'latency', attributes: { latency: 1 } } as ICreateToxicBody<unknown>);
    const again = await tp.populate([{ name: 'keep', listen: first!.listen, upstream: redis.address }]);
    expect(again['keep']!.listen).toBe(first!.listen);
    expect(await (await fetch(`${base}/proxies/keep/toxics`)).json()).toHaveLength(1);
    await tp.populate([{ name: 'keep', listen: first!.listen, upstream: '127.0.0.1:1' }]);
    expect(await (await fetch(`${base}/proxies/keep/toxics`)).json()).toEqual([]);
    await (await tp.get('keep')).remove();
  });

  it('populate with a name given twice: the last entry wins, one proxy per entry in the reply, as toxiproxy (AddOrReplace)', async () => {
    const populate = async (entries: object[]) => {
      const res = await fetch(`${base}/populate`, { method: 'POST', body: JSON.stringify(entries) });
      return { status: res.status, body: (await res.json()) as { proxies: { name: string; listen: string; upstream: string; enabled: boolean }[] } };
    };
    // Identical: the second keeps the first; the reply lists it twice.
    const same = await populate([{ name: 'd', upstream: redis.address }, { name: 'd', upstream: redis.address }]);
    expect(same.status).toBe(201);
    expect(same.body.proxies).toHaveLength(2);
    expect(same.body.proxies[1]).toEqual(same.body.proxies[0]);
    expect(same.body.proxies[0]).toMatchObject({ name: 'd', upstream: redis.address, enabled: true });
    // Another upstream: the second replaces the first, which the reply shows stopped.
    const other = await populate([{ name: 'e', upstream: redis.address }, { name: 'e', upstream: '127.0.0.1:1' }]);
    expect(other.status).toBe(201);
    expect(other.body.proxies.map((p) => [p.name, p.upstream, p.enabled])).toEqual([['e', redis.address, false], ['e', '127.0.0.1:1', true]]);
    // Kept, it takes the last entry's `enabled` (toxiproxy would leave it enabled: docs/toxiproxy.md).
    const off = await populate([{ name: 'd', upstream: redis.address }, { name: 'd', upstream: redis.address, enabled: false }]);
    expect(off.body.proxies.map((p) => [p.listen, p.enabled])).toEqual([[same.body.proxies[0]!.listen, false], [same.body.proxies[0]!.listen, false]]);
    const all = await tp.getAll();
    expect(Object.keys(all).filter((n) => n === 'd' || n === 'e').sort()).toEqual(['d', 'e']);
    expect(all['e']).toMatchObject({ upstream: '127.0.0.1:1', listen: other.body.proxies[1]!.listen, enabled: true });
    await all['d']!.remove();
    await all['e']!.remove();
  });
});

describe('a listen address named by its host name is the proxy bound there, as toxiproxy resolves it (Differs)', () => {
  it('populate keeps the proxy, toxics and all, and an update with it restarts nothing', async () => {
    const populate = async (entries: object[]) => {
      const res = await fetch(`${base}/populate`, { method: 'POST', body: JSON.stringify(entries) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { proxies: { listen: string }[] }).proxies;
    };
    const [made] = await populate([{ name: 'byname', upstream: redis.address }]);
    const port = made!.listen.split(':').pop();
    const p = await tp.get('byname');
    await p.addToxic({ name: 'slow', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 1 } } as ICreateToxicBody<unknown>);
    const client = new Redis({ host: '127.0.0.1', port: Number(port), lazyConnect: true, maxRetriesPerRequest: 0 });
    await client.connect();
    await populate([{ name: 'byname', upstream: redis.address, listen: `localhost:${port}` }]);
    const res = await fetch(`${base}/proxies/byname`, { method: 'POST', body: JSON.stringify({ listen: `localhost:${port}` }) });
    expect(res.status).toBe(200);
    const after = await tp.get('byname');
    expect(after.listen).toBe(made!.listen);
    const toxics = (await (await fetch(`${base}/proxies/byname/toxics`)).json()) as { name: string }[];
    expect(toxics.map((t) => t.name)).toEqual(['slow']);
    // The connection made before both lived through them: nothing restarted.
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    await after.remove();
  });
});

describe('status codes and error bodies as toxiproxy sends them', () => {
  const call = async (method: string, path: string, body?: string) => {
    const res = await fetch(base + path, { method, body });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
  };

  it('names the field and uses toxiproxy statuses', async () => {
    expect(await call('POST', '/proxies', '{"upstream":"127.0.0.1:1"}')).toMatchObject({ status: 400, body: { error: 'missing required field: name', status: 400 } });
    expect(await call('POST', '/proxies', '{"name":"x"}')).toMatchObject({ status: 400, body: { error: 'missing required field: upstream' } });
    expect(await call('POST', '/proxies', 'not json')).toMatchObject({ status: 400, body: { status: 400 } });
    expect(await call('GET', '/proxies/nope')).toEqual({ status: 404, type: 'text/plain; charset=utf-8', body: { error: 'proxy not found', status: 404 } });
    // curl -d without a content type, as toxiproxy's README does.
    expect((await call('POST', '/proxies', JSON.stringify({ name: 'e', upstream: redis.address }))).status).toBe(201);
    expect(await call('POST', '/proxies', JSON.stringify({ name: 'e', upstream: redis.address }))).toMatchObject({ status: 409, body: { error: 'proxy already exists' } });
    expect(await call('POST', '/proxies/e/toxics', '{"type":"nope"}')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^invalid toxic type/) } });
    expect(await call('POST', '/proxies/e/toxics', '{"type":"latency","stream":"sideways"}')).toMatchObject({
      status: 400,
      body: { error: 'stream was invalid, can be either upstream or downstream' },
    });
    // toxiproxy's order (AddToxicJson): the envelope's decoding, the stream, then the type. Ours named the type first.
    const stream = { status: 400, body: { error: 'stream was invalid, can be either upstream or downstream' } };
    expect(await call('POST', '/proxies/e/toxics', '{"type":"nope","stream":"sideways"}')).toMatchObject(stream);
    expect(await call('POST', '/proxies/e/toxics', '{"type":"latency","stream":"sideways","toxicity":"x"}')).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^bad request body: toxicity: /) },
    });
    expect(await call('POST', '/proxies/e/toxics', '{"type":5,"stream":"sideways"}')).toMatchObject({
      status: 400,
      body: { error: 'bad request body: type: invalid value 5; expected a string' },
    });
    expect(await call('POST', '/proxies/e/toxics', '{"type":"latency","attributes":{"latency":"1"}}')).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('attributes.latency') },
    });
    expect((await call('POST', '/proxies/e/toxics', '{"type":"latency"}')).status).toBe(200);
    expect(await call('POST', '/proxies/e/toxics', '{"type":"latency"}')).toMatchObject({ status: 409, body: { error: 'toxic already exists' } });
    // toxiproxy looks at the name before the attributes: a taken name is 409 whatever they hold.
    expect(await call('POST', '/proxies/e/toxics', '{"type":"latency","attributes":{"latency":"abc"}}')).toMatchObject({
      status: 409,
      body: { error: 'toxic already exists' },
    });
    expect(await call('POST', '/proxies/e/toxics', '{"type":"latency","name":"x","attributes":{"latency":"abc"}}')).toMatchObject({ status: 400 });
    expect(await call('GET', '/proxies/e/toxics/nope')).toMatchObject({ status: 404, body: { error: 'toxic not found' } });
    // toxiproxy finds the toxic before it reads the body: a 404, where the body's 400 came first.
    expect(await call('POST', '/proxies/e/toxics/nope', 'not json')).toMatchObject({ status: 404, body: { error: 'toxic not found' } });
    expect(await call('DELETE', '/proxies/nope/toxics/latency_downstream')).toMatchObject({ status: 404, body: { error: 'proxy not found' } });
    expect((await call('PATCH', '/proxies/e/toxics/latency_downstream', '{"attributes":{"latency":2}}')).body.attributes.latency).toBe(2);
    // toxiproxy takes a toxic named ".."; no path can name it from fetch or a browser, ?name= can (ours).
    expect((await call('POST', '/proxies/e/toxics', '{"type":"latency","name":".."}')).status).toBe(200);
    expect((await call('DELETE', '/proxies/e/toxics?name=..')).status).toBe(204);
    expect(await call('DELETE', '/proxies/e/toxics?name=..')).toMatchObject({ status: 404, body: { error: 'toxic not found' } });
    expect(await call('DELETE', '/proxies/e/toxics')).toMatchObject({ status: 400, body: { error: expect.stringContaining('?name=') } });
    expect((await call('DELETE', '/proxies/e')).status).toBe(204);
  });

  it("writes errors in toxiproxy's bytes: Go's http.Error (plain text, a newline), gorilla/mux's 404 page and bare 405", async () => {
    const raw = async (method: string, path: string, body?: string) => {
      const res = await fetch(base + path, { method, body });
      const h = (name: string) => res.headers.get(name);
      return { status: res.status, type: h('content-type'), nosniff: h('x-content-type-options'), allow: h('allow'), text: await res.text() };
    };
    const goError = (status: number, text: string) => ({ status, type: 'text/plain; charset=utf-8', nosniff: 'nosniff', allow: null, text });
    expect(await raw('GET', '/proxies/nope')).toEqual(goError(404, '{"error":"proxy not found","status":404}\n'));
    expect(await raw('POST', '/proxies', '')).toEqual(goError(400, '{"error":"bad request body: EOF","status":400}\n'));
    expect(await raw('GET', '/nope')).toEqual(goError(404, '404 page not found\n'));
    expect(await raw('GET', '/proxies/')).toEqual(goError(404, '404 page not found\n'));
    expect(await raw('PUT', '/proxies/nope')).toEqual({ status: 405, type: null, nosniff: null, allow: 'GET, HEAD, POST, PATCH, DELETE', text: '' });
    // A base URL that ends in '/' sends //proxies: toxiproxy's router answers 301 to the path cleaned (it was a 404).
    const moved = await fetch(`${base}//proxies?x=1`, { redirect: 'manual' });
    expect([moved.status, moved.headers.get('location')]).toEqual([301, '/proxies?x=1']);
    expect(await new Toxiproxy(`${base}/`).getAll()).toBeTypeOf('object');
    // Not to `/\evil.example`, which a browser reads as another site (fetch would send the backslash as '/').
    const { request } = await import('node:http');
    const [host, port] = server.api.split(':');
    const backslash = await new Promise<number | undefined>((resolve, reject) =>
      request({ host, port: Number(port), path: '//\\evil.example' }, (res) => resolve(res.resume().statusCode)).on('error', reject).end());
    expect(backslash).toBe(404);
    // POST /populate's errors are JSON there, as toxiproxy writes them itself.
    expect(await raw('POST', '/populate', '{}')).toMatchObject({ status: 400, type: 'application/json', text: expect.stringMatching(/"proxies":null\}$/) });
  });

  it("writes JSON as toxiproxy's Go does: a toxic's fields in its declared order, proxies by name", async () => {
    const text = async (method: string, path: string, body?: string) => (await fetch(base + path, { method, body })).text();
    for (const name of ['zeta', 'Beta', 'alpha', 'é']) await call('POST', '/proxies', JSON.stringify({ name, upstream: redis.address }));
    // Go sorts a map's keys by their bytes: upper case before lower, UTF-8 after ASCII.
    expect(Object.keys(JSON.parse(await text('GET', '/proxies')))).toEqual(['Beta', 'alpha', 'zeta', 'é']);
    const toxic = '{"attributes":{"latency":5,"jitter":0},"name":"l","type":"latency","stream":"upstream","toxicity":1}';
    expect(await text('POST', '/proxies/alpha/toxics', '{"name":"l","type":"latency","stream":"upstream","attributes":{"latency":5}}')).toBe(toxic);
    expect(await text('GET', '/proxies/alpha/toxics/l')).toBe(toxic);
    expect(await text('GET', '/proxies/alpha/toxics')).toBe(`[${toxic}]`);
    expect(await text('GET', '/proxies/alpha')).toContain(`"toxics":[${toxic}]`);
    // `applied` (ours) comes after toxiproxy's fields.
    expect(await text('POST', '/proxies/alpha/toxics/l', '{"toxicity":2}')).toBe(toxic.replace('"toxicity":1}', '"toxicity":2,"applied":{"toxicity":1,"attributes":{"latency":5,"jitter":0}}}'));
    for (const name of ['zeta', 'Beta', 'alpha', 'é']) await call('DELETE', `/proxies/${encodeURIComponent(name)}`);
  });

  it('lists toxics as toxiproxy does: the upstream ones first, then the downstream ones, each in the order added', async () => {
    await call('POST', '/proxies', JSON.stringify({ name: 'order', upstream: redis.address }));
    const add = (body: object) => call('POST', '/proxies/order/toxics', JSON.stringify(body));
    await add({ type: 'latency', name: 'd1', attributes: { latency: 1 } });
    await add({ type: 'bandwidth', name: 'u1', stream: 'upstream', attributes: { rate: 100 } });
    await add({ type: 'latency', name: 'd2', attributes: { latency: 2 } });
    await add({ type: 'slicer', name: 'u2', stream: 'upstream' });
    const names = (list: { name: string }[]) => list.map((t) => t.name);
    expect(names((await call('GET', '/proxies/order/toxics')).body)).toEqual(['u1', 'u2', 'd1', 'd2']);
    expect(names((await call('GET', '/proxies/order')).body.toxics)).toEqual(['u1', 'u2', 'd1', 'd2']);
    await call('DELETE', '/proxies/order');
  });

  it('a populate that fails part way lists, as toxiproxy does, the proxies it made before', async () => {
    const a = await call('POST', '/proxies', JSON.stringify({ name: 'busy', upstream: redis.address }));
    const r = await call('POST', '/populate', JSON.stringify([
      { name: 'made', upstream: redis.address },
      { name: 'clash', listen: a.body.listen, upstream: redis.address },
    ]));
    expect(r).toMatchObject({ status: 500, body: { status: 500, error: expect.stringContaining('address already in use') } });
    expect(r.body.proxies.map((p: { name: string }) => p.name)).toEqual(['made']);
    for (const n of ['busy', 'made']) await call('DELETE', `/proxies/${n}`);
  });

  it("POST /populate answers `proxies` as toxiproxy does: null when none, for [] and for an error before any was made", async () => {
    const raw = async (body: string) => {
      const res = await fetch(`${base}/populate`, { method: 'POST', body });
      return [res.status, await res.text()];
    };
    expect(await raw('[]')).toEqual([201, '{"proxies":null}']);
    expect(await raw('[{"upstream":"127.0.0.1:1"}]')).toEqual([400, '{"error":"missing required field: name at proxy 1","status":400,"proxies":null}']);
    expect(await raw('{}')).toEqual([400, '{"error":"bad request body: expected a JSON array of proxies","status":400,"proxies":null}']);
    const [status, text] = await raw('not json');
    expect([status, JSON.parse(text as string)]).toEqual([400, { error: expect.stringMatching(/^bad request body: /), status: 400, proxies: null }]);
    // toxiproxy-node-client 4.1.0 iterates `proxies`: it throws on toxiproxy's null, from either server (docs/toxiproxy.md).
    await expect(tp.populate([])).rejects.toThrow(TypeError);
  });

  it('a listen address in use is a 500, not a 409', async () => {
    const a = await call('POST', '/proxies', JSON.stringify({ name: 'a', upstream: redis.address }));
    const b = await call('POST', '/proxies', JSON.stringify({ name: 'b', listen: a.body.listen, upstream: redis.address }));
    expect(b).toMatchObject({ status: 500, body: { status: 500, error: expect.stringContaining('address already in use') } });
    expect((await call('GET', '/proxies')).body['b']).toBeUndefined();
    await call('DELETE', '/proxies/a');
  });

  it("takes a Redis-aware toxic's list and flag as toxiproxy-cli sends them: strings, as `-a commands=GET,SET -a close=true`", async () => {
    expect((await call('POST', '/proxies', JSON.stringify({ name: 'cli', upstream: redis.address }))).status).toBe(201);
    // toxiproxy-cli 2.12's bodies, as captured: every -a value a number or a string (both were 400s).
    const added = await call('POST', '/proxies/cli/toxics', '{"name":"","type":"redis_drop","stream":"downstream","toxicity":1,"attributes":{"close":"true","commands":"GET, SET"}}');
    expect(added).toMatchObject({ status: 200, body: { attributes: { close: true, commands: ['GET', 'SET'], keys: '' } } });
    // `-a keys=2024` comes as a number: its digits, for the glob.
    const updated = await call('PATCH', '/proxies/cli/toxics/redis_drop_downstream', '{"attributes":{"commands":"del","close":"false","keys":2024},"toxicity":1}');
    expect(updated).toMatchObject({ status: 200, body: { attributes: { close: false, commands: ['DEL'], keys: '2024' } } });
    // A string that is neither stays refused, naming the field.
    expect(await call('PATCH', '/proxies/cli/toxics/redis_drop_downstream', '{"attributes":{"close":"yes"}}')).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('attributes.close') },
    });
    await call('DELETE', '/proxies/cli');
  });

  it("a proxy whose Redis is down keeps its address: its listener is closed until Redis answers, but another proxy's create is a 500", async () => {
    // Port 1: nothing listens, the start-up's dial is refused and the listener closes before the 201.
    const down = (await call('POST', '/proxies', JSON.stringify({ name: 'down', upstream: '127.0.0.1:1' }))).body;
    // Was a 201: both proxies enabled on one address, and `down`, its Redis back, failing to listen every 50 ms.
    const taken = await call('POST', '/proxies', JSON.stringify({ name: 'taker', listen: down.listen, upstream: redis.address }));
    expect(taken).toMatchObject({ status: 500, body: { error: `listen ${down.listen}: address already in use (by proxy down)` } });
    expect((await call('POST', '/proxies', JSON.stringify({ name: 'taker', listen: down.listen, upstream: redis.address, enabled: false }))).status).toBe(201);
    expect((await call('POST', '/proxies/taker', '{"enabled":true}')).status).toBe(500);
    await call('DELETE', '/proxies/down');
    expect((await call('POST', '/proxies/taker', '{"enabled":true}')).body).toMatchObject({ listen: down.listen, enabled: true });
    await call('DELETE', '/proxies/taker');
  });

  it('a refused update changes nothing: the proxy keeps its addresses and stays enabled (or disabled)', async () => {
    const a = (await call('POST', '/proxies', JSON.stringify({ name: 'u', upstream: redis.address }))).body;
    const refused = await call('PATCH', '/proxies/u', '{"upstream":"127.0.0.1:0"}');
    expect(refused).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^bad request body: upstream: invalid value "127\.0\.0\.1:0"; expected host:port \(port 6379/) } });
    expect((await call('GET', '/proxies/u')).body).toMatchObject({ listen: a.listen, upstream: redis.address, enabled: true });
    const c = new Redis(Number(a.listen.split(':')[1]), '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
    await c.connect();
    expect(await c.ping()).toBe('PONG');
    c.disconnect();
    expect((await call('POST', '/proxies/u', '{"enabled":false}')).body.enabled).toBe(false);
    expect(await call('POST', '/proxies/u', '{"listen":"bad"}')).toMatchObject({ status: 400, body: { error: expect.stringContaining('listen: invalid value "bad"') } });
    expect((await call('GET', '/proxies/u')).body).toMatchObject({ listen: a.listen, enabled: false });
    expect((await call('POST', '/proxies/u', '{"enabled":true}')).body).toMatchObject({ listen: a.listen, enabled: true });
    // Created disabled, a bad address is refused at once, not when it is enabled.
    expect((await call('POST', '/proxies', JSON.stringify({ name: 'v', upstream: 'h:x', enabled: false }))).status).toBe(400);
    // A bare host means Redis's port, as `proxy --upstream` takes it.
    expect((await call('POST', '/proxies', JSON.stringify({ name: 'w', upstream: 'localhost', enabled: false }))).body).toMatchObject({ upstream: 'localhost' });
    for (const n of ['u', 'w']) await call('DELETE', `/proxies/${n}`);
  });

  it('takes a stream in any case and the noop toxic, and refuses a fraction where toxiproxy decodes an integer', async () => {
    await call('POST', '/proxies', JSON.stringify({ name: 'n', upstream: redis.address }));
    // Named by the stream as sent, as toxiproxy 2.12 names it (checked against toxiproxy-server).
    expect((await call('POST', '/proxies/n/toxics', '{"type":"latency","stream":"UPSTREAM"}')).body).toMatchObject({ name: 'latency_UPSTREAM', stream: 'upstream' });
    expect((await call('POST', '/proxies/n/toxics', '{"type":"noop"}')).body).toEqual({ name: 'noop_downstream', stream: 'downstream', toxicity: 1, type: 'noop', attributes: {} });
    const integers: [string, string][] = [
      ['bandwidth', 'rate'],
      ['slow_close', 'delay'],
      ['timeout', 'timeout'],
      ['reset_peer', 'timeout'],
      ['slicer', 'delay'],
    ];
    for (const [type, field] of integers) {
      const r = await call('POST', '/proxies/n/toxics', JSON.stringify({ type, name: `${type}1`, attributes: { [field]: 1.5 } }));
      expect(r, type).toMatchObject({ status: 400, body: { error: expect.stringContaining(`attributes.${field}: invalid value 1.5; expected an integer`) } });
    }
    expect(await call('POST', '/proxies/n/toxics', '{"stream":"upstream"}')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^invalid toxic type: type: missing; expected one of latency/) } });
    // No type and a bad stream: toxiproxy names the stream (it checks it first).
    expect(await call('POST', '/proxies/n/toxics', '{"stream":"up"}')).toMatchObject({ status: 400, body: { error: 'stream was invalid, can be either upstream or downstream' } });
    await call('DELETE', '/proxies/n');
  });

  it('serves stats per proxy and Prometheus metrics', async () => {
    await call('POST', '/proxies', JSON.stringify({ name: 'm', upstream: redis.address }));
    await call('POST', '/proxies/m/toxics', '{"type":"redis_error","attributes":{"error":"ERR x"}}');
    const stats = await call('GET', '/proxies/m/stats');
    expect(stats.body).toMatchObject({ enabled: true, toxics: [{ name: 'redis_error_downstream', type: 'redis_error', applications: 0 }] });
    const res = await fetch(`${base}/metrics`);
    const text = await res.text();
    expect(text).toContain('redis_rtt_toxic_applications_total{proxy="m",toxic="redis_error_downstream",type="redis_error",stream="downstream"} 0');
    expect(text).toContain('toxiproxy_proxy_received_bytes_total{listener=');
    await call('DELETE', '/proxies/m');
  });

  it('refuses a foreign Host or Origin with 403 in the error body', async () => {
    const port = server.api.split(':').pop();
    const { request } = await import('node:http');
    const send = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: Number(port), path: '/proxies', headers }, (res) => {
          let t = '';
          res.on('data', (c) => (t += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(t) }));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await send({ host: `evil.example:${port}` })).toMatchObject({ status: 403, body: { status: 403 } });
    expect(await send({ host: `localhost:${port}`, origin: 'http://evil.example' })).toMatchObject({ status: 403 });
    expect((await send({ host: `localhost:${port}` })).status).toBe(200);
  });
});
