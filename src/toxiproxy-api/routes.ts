import type http from 'node:http';
import { VERSION } from '../version.js';
import { ApiError, toApiError } from './api-error.js';
import type { ProxyCollection } from './collection.js';
import { readJson, sendEmpty, sendError, sendJson } from './http-io.js';
import { renderServerMetrics } from './metrics.js';

/**
 * toxiproxy reports its own version here; clients only print it. We answer with the toxiproxy API
 * version we follow, and ours as semver build metadata (ignored when versions are compared).
 */
export const TOXIPROXY_API_VERSION = '2.6.0';

type Params = { proxy?: string; toxic?: string };
type Handler = (c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: Params) => Promise<void>;

const ROUTES: [string, RegExp, Record<string, Handler>][] = [
  ['reset', /^\/reset$/, { POST: reset }],
  ['version', /^\/version$/, { GET: version }],
  ['metrics', /^\/metrics$/, { GET: metrics }],
  ['populate', /^\/populate$/, { POST: populate }],
  ['proxies', /^\/proxies$/, { GET: proxyIndex, POST: proxyCreate }],
  ['proxy', /^\/proxies\/([^/]+)$/, { GET: proxyShow, POST: proxyUpdate, PATCH: proxyUpdate, DELETE: proxyDelete }],
  ['stats', /^\/proxies\/([^/]+)\/stats$/, { GET: proxyStats }],
  ['toxics', /^\/proxies\/([^/]+)\/toxics$/, { GET: toxicIndex, POST: toxicCreate }],
  ['toxic', /^\/proxies\/([^/]+)\/toxics\/([^/]+)$/, { GET: toxicShow, POST: toxicUpdate, PATCH: toxicUpdate, DELETE: toxicDelete }],
];

/** Routes one request of toxiproxy's v2 API (plus /proxies/{name}/stats). Never throws. */
export async function route(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  try {
    for (const [, rx, methods] of ROUTES) {
      const m = rx.exec(path);
      if (!m) continue;
      const handler = methods[req.method ?? 'GET'];
      if (!handler) {
        req.resume();
        throw new ApiError(`method ${req.method} not allowed on ${path}; allowed: ${Object.keys(methods).join(', ')}`, 405);
      }
      const p: Params = { proxy: m[1] && decodeURIComponent(m[1]), toxic: m[2] && decodeURIComponent(m[2]) };
      await handler(c, req, res, p);
      return;
    }
    req.resume();
    throw new ApiError(`no such endpoint ${path}`, 404);
  } catch (err) {
    if (!res.headersSent) sendError(res, toApiError(err));
    else res.destroy();
  }
}

async function reset(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  req.resume();
  await c.serial(() => c.reset());
  sendEmpty(res, 204);
}

async function version(_c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const text = JSON.stringify({ version: `${TOXIPROXY_API_VERSION}+redis-rtt.${VERSION}` }) + '\n';
  res.writeHead(200, { 'content-type': 'application/json;charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function metrics(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  res.end(renderServerMetrics(c.list()));
}

async function populate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const body = await readJson(req);
  const proxies = await c.serial(() => c.populate(body));
  sendJson(res, 201, { proxies: proxies.map((p) => p.toJSON()) });
}

async function proxyIndex(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  sendJson(res, 200, Object.fromEntries(c.list().map((p) => [p.name, p.toJSON()])));
}

async function proxyCreate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const body = await readJson(req);
  const p = await c.serial(() => c.create(body as object));
  sendJson(res, 201, p.toJSON());
}

async function proxyShow(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  sendJson(res, 200, c.get(p.proxy!).toJSON());
}

async function proxyUpdate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  const proxy = c.get(p.proxy!);
  const body = await readJson(req);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('bad request body: expected a JSON object', 400);
  const b = body as { listen?: unknown; upstream?: unknown; enabled?: unknown };
  for (const [k, t] of [['listen', 'string'], ['upstream', 'string'], ['enabled', 'boolean']] as const) {
    if (b[k] !== undefined && typeof b[k] !== t) throw new ApiError(`bad request body: ${k}: expected a ${t}`, 400);
  }
  await c.serial(() => proxy.update(b as { listen?: string; upstream?: string; enabled?: boolean }));
  sendJson(res, 200, proxy.toJSON());
}

async function proxyDelete(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  req.resume();
  await c.serial(() => c.remove(p.proxy!));
  sendEmpty(res, 204);
}

async function proxyStats(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  sendJson(res, 200, c.get(p.proxy!).stats());
}

async function toxicIndex(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  sendJson(res, 200, c.get(p.proxy!).toxicSpecs());
}

async function toxicCreate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  const proxy = c.get(p.proxy!);
  const body = await readJson(req);
  sendJson(res, 200, await c.serial(() => proxy.addToxic(body)));
}

async function toxicShow(c: ProxyCollection, _req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  sendJson(res, 200, c.get(p.proxy!).getToxic(p.toxic!));
}

async function toxicUpdate(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  const proxy = c.get(p.proxy!);
  const body = await readJson(req);
  sendJson(res, 200, await c.serial(() => proxy.updateToxic(p.toxic!, body)));
}

async function toxicDelete(c: ProxyCollection, req: http.IncomingMessage, res: http.ServerResponse, p: Params): Promise<void> {
  req.resume();
  const proxy = c.get(p.proxy!);
  await c.serial(() => proxy.removeToxic(p.toxic!));
  sendEmpty(res, 204);
}
