import type http from 'node:http';
import { BodyError, readJson, sendEmpty, sendJson } from '../http/json.js';
import { requiredQueryParam, type Params, type Route } from '../http/router.js';
import { VERSION } from '../version.js';
import type { ProxyCollection } from './collection.js';
import { renderServerMetrics } from './metrics.js';
import { PopulateError, populatedJson, toApiError } from './api-error.js';
import { parseProxyBody } from './proxy-body.js';
import { toxicJson } from './managed-proxy.js';

/**
 * toxiproxy reports its own version here; clients only print it. We answer with the toxiproxy API
 * version we follow, and ours as semver build metadata (ignored when versions are compared).
 */
export const TOXIPROXY_API_VERSION = '2.6.0';

/** toxiproxy takes bodies of any size; this only stops a client from filling our memory. */
export const API_BODY_LIMIT_BYTES = 1024 * 1024;

type Handler = (c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string; toxic: string }) => Promise<void>;

const TABLE: [string | RegExp, Record<string, Handler>][] = [
  ['/reset', { POST: reset }],
  ['/version', { GET: version }],
  ['/metrics', { GET: metrics }],
  ['/populate', { POST: populate }],
  ['/proxies', { GET: proxyIndex, POST: proxyCreate }],
  [/^\/proxies\/([^/]+)$/, { GET: proxyShow, POST: proxyUpdate, PATCH: proxyUpdate, DELETE: proxyDelete }],
  [/^\/proxies\/([^/]+)\/stats$/, { GET: proxyStats }],
  [/^\/proxies\/([^/]+)\/toxics$/, { GET: toxicIndex, POST: toxicCreate, DELETE: toxicDeleteByQuery }],
  [/^\/proxies\/([^/]+)\/toxics\/([^/]+)$/, { GET: toxicShow, POST: toxicUpdate, PATCH: toxicUpdate, DELETE: toxicDelete }],
];

/** toxiproxy's v2 API (plus /proxies/{name}/stats) on one collection of proxies. */
export function apiRoutes(c: ProxyCollection): Route[] {
  const bind = (h: Handler) => (req: http.IncomingMessage, res: http.ServerResponse, [proxy = '', toxic = '']: Params) =>
    h(c, req, res, { proxy, toxic });
  return TABLE.map(([path, methods]) => ({
    path,
    methods: Object.fromEntries(Object.entries(methods).map(([m, h]) => [m, bind(h)])),
  }));
}

async function reset(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  await c.serial(() => c.reset());
  sendEmpty(res, 204);
}

async function version(_c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  // Not sendJson: toxiproxy's own bytes (it formats `{"version": "%s"}\n`, a space after the colon),
  // its content type with the charset. A client that prints or compares the text sees the same shape.
  const text = `{"version": ${JSON.stringify(`${TOXIPROXY_API_VERSION}+redis-rtt.${VERSION}`)}}\n`;
  res.writeHead(200, { 'content-type': 'application/json;charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function metrics(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  res.end(renderServerMetrics(c.list()));
}

/** toxiproxy's reply carries `proxies` whatever happened: an error before any was made too (its null). */
async function populate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  try {
    const body = await readJson(req, API_BODY_LIMIT_BYTES);
    const proxies = await c.serial(() => c.populate(body));
    sendJson(res, 201, { proxies: populatedJson(proxies) });
  } catch (err) {
    // An oversized body goes to the endpoint, which drops the connection rather than read the rest.
    if (err instanceof BodyError && err.reason === 'too-large') throw err;
    const e = err instanceof PopulateError ? err : new PopulateError(toApiError(err), []);
    sendJson(res, e.status, e.toJSON());
  }
}

async function proxyIndex(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  // Go encodes a map with its keys sorted (by their UTF-8 bytes), so toxiproxy lists proxies by name.
  const byName = c.list().sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  sendJson(res, 200, Object.fromEntries(byName.map((p) => [p.name, p.toJSON()])));
}

async function proxyCreate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const body = await readJson(req, API_BODY_LIMIT_BYTES);
  const p = await c.serial(() => c.create(body));
  sendJson(res, 201, p.toJSON());
}

async function proxyShow(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string }): Promise<void> {
  sendJson(res, 200, c.get(p.proxy).toJSON());
}

async function proxyUpdate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string }): Promise<void> {
  const proxy = c.get(p.proxy);
  const body = parseProxyBody(await readJson(req, API_BODY_LIMIT_BYTES));
  await c.serial(() => proxy.update(body));
  sendJson(res, 200, proxy.toJSON());
}

async function proxyDelete(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string }): Promise<void> {
  await c.serial(() => c.remove(p.proxy));
  sendEmpty(res, 204);
}

async function proxyStats(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string }): Promise<void> {
  sendJson(res, 200, c.get(p.proxy).stats());
}

async function toxicIndex(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string }): Promise<void> {
  sendJson(res, 200, c.get(p.proxy).toxicSpecs().map(toxicJson));
}

async function toxicCreate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string }): Promise<void> {
  const proxy = c.get(p.proxy);
  const body = await readJson(req, API_BODY_LIMIT_BYTES);
  sendJson(res, 200, toxicJson(await c.serial(() => proxy.addToxic(body))));
}

async function toxicShow(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string; toxic: string }): Promise<void> {
  sendJson(res, 200, toxicJson(c.get(p.proxy).getToxic(p.toxic)));
}

async function toxicUpdate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string; toxic: string }): Promise<void> {
  const proxy = c.get(p.proxy);
  // As toxiproxy (UpdateToxicJson finds the toxic, then decodes): a missing toxic is a 404 whatever the body.
  proxy.getToxic(p.toxic);
  const body = await readJson(req, API_BODY_LIMIT_BYTES);
  sendJson(res, 200, toxicJson(await c.serial(() => proxy.updateToxic(p.toxic, body))));
}

async function toxicDelete(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string; toxic: string }): Promise<void> {
  const proxy = c.get(p.proxy);
  await c.serial(() => proxy.removeToxic(p.toxic));
  sendEmpty(res, 204);
}

/**
 * DELETE /proxies/{proxy}/toxics?name=TOXIC, ours (toxiproxy has no DELETE here): toxiproxy takes any
 * toxic name, and a browser cannot send "." or ".." as a path segment (the dashboard's form).
 */
async function toxicDeleteByQuery(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: { proxy: string }): Promise<void> {
  await toxicDelete(c, req, res, { proxy: p.proxy, toxic: requiredQueryParam(req, 'name') });
}
