import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/json.js';
import { pathOf, Router, routesHint, type Params } from '../../src/http/router.js';

const req = (method: string, url: string) => ({ method, url }) as http.IncomingMessage;
const res = {} as http.ServerResponse;

/** Routes that record which handler ran with which params. */
function setup() {
  const calls: string[] = [];
  const record = (name: string) => (_q: http.IncomingMessage, _s: http.ServerResponse, p: Params) => void calls.push(`${name}(${p.join(',')})`);
  const router = new Router(
    [
      { path: '/stats', methods: { GET: record('stats') } },
      { path: /^\/proxies\/([^/]+)$/, methods: { GET: record('show'), DELETE: record('delete') } },
      { path: /^\/proxies\/([^/]+)\/toxics\/([^/]+)$/, methods: { PATCH: record('toxic') } },
    ],
    '; try GET /stats',
  );
  const fails = async (method: string, url: string) => {
    const err = await router.handle(req(method, url), res).catch((e: unknown) => e);
    expect(err, `${method} ${url}`).toBeInstanceOf(HttpError);
    return { status: (err as HttpError).status, message: (err as HttpError).message };
  };
  return { router, calls, fails };
}

describe('Router', () => {
  it('runs the first matching route with its URL-decoded params, ignoring the query', async () => {
    const { router, calls } = setup();
    await router.handle(req('GET', '/stats?x=1'), res);
    await router.handle(req('GET', '/proxies/my%20redis'), res);
    await router.handle(req('PATCH', '/proxies/a/toxics/latency_downstream'), res);
    expect(calls).toEqual(['stats()', 'show(my redis)', 'toxic(a,latency_downstream)']);
  });

  it('no matching path: 404 with the hint; a path without the method: 405 listing the methods', async () => {
    const { fails, calls } = setup();
    expect(await fails('GET', '/nope')).toEqual({ status: 404, message: 'no such endpoint /nope; try GET /stats' });
    expect(await fails('GET', '//stats')).toMatchObject({ status: 404 });
    expect(await fails('GET', '/stats/')).toMatchObject({ status: 404 });
    expect(await fails('POST', '/stats')).toEqual({ status: 405, message: 'method POST not allowed on /stats; allowed: GET, HEAD' });
    expect(await fails('PUT', '/proxies/a')).toEqual({ status: 405, message: 'method PUT not allowed on /proxies/a; allowed: GET, HEAD, DELETE' });
    expect(calls).toEqual([]);
  });

  it('a method name that is an Object member is not a handler', async () => {
    const { fails } = setup();
    for (const m of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(await fails(m, '/stats')).toMatchObject({ status: 405 });
  });

  it('malformed percent-encoding in a param: 400, not a crash', async () => {
    const { fails } = setup();
    expect(await fails('GET', '/proxies/%E0%A4%A')).toEqual({ status: 400, message: 'malformed percent-encoding in /proxies/%E0%A4%A' });
  });

  it('pathOf drops the query and reads a missing URL as /', () => {
    expect([pathOf('/a?b=c'), pathOf('/a'), pathOf(undefined), pathOf('/?')]).toEqual(['/a', '/a', '/', '/']);
  });
});

describe('routesHint', () => {
  it('names each exact path with each of its methods, in order; patterns are left to their listing', () => {
    const none = (): void => {};
    expect(routesHint([
      { path: '/', methods: { GET: none } },
      { path: '/link', methods: { GET: none, PUT: none } },
      { path: /^\/toxics\/([^/]+)$/, methods: { PATCH: none, DELETE: none } },
    ])).toBe('; try GET /, GET /link, PUT /link');
    expect(routesHint([{ path: /^\/x$/, methods: { GET: none } }])).toBe('');
  });
});
