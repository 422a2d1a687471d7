import type http from 'node:http';
import { HttpError } from './json.js';

/**
 * No route answers the request: a path no route has (404) or a method its route lacks (405). Its own
 * class so an endpoint can word it apart from a handler's 404 (toxiproxy's API answers these as
 * its router does, in plain text, and a missing proxy in its JSON).
 */
export class NoRouteError extends HttpError {
  override name = 'NoRouteError';
}

/** The path's captured segments, URL-decoded, in order. */
export type Params = readonly string[];
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, params: Params) => Promise<void> | void;

export interface Route {
  /** An exact path, or a pattern whose groups become the params. Matched against the path without the query. */
  path: string | RegExp;
  /** Handlers by method (GET, POST, ...). */
  methods: Readonly<Record<string, Handler>>;
}

/**
 * The first route whose path matches answers. No match is a 404; a matching path without the
 * method is a 405 that lists the methods it has (in its Allow header too). Both are thrown as
 * NoRouteError, for the endpoint to word as its error body. HEAD is answered wherever GET is, by the
 * GET handler: the same status and headers, and no body (RFC 9110 9.3.2; Node drops what a handler
 * writes to a HEAD's response).
 */
export class Router {
  constructor(
    private readonly routes: readonly Route[],
    /** Appended to the 404 reason, e.g. "; try GET /stats". */
    private readonly notFoundHint = '',
  ) {}

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = pathOf(req.url);
    const method = req.method ?? 'GET';
    for (const r of this.routes) {
      const params = match(r.path, path);
      if (params === undefined) continue;
      const handler = own(r.methods, method) ?? (method === 'HEAD' ? own(r.methods, 'GET') : undefined);
      if (!handler) {
        const allowed = allowedMethods(r.methods).join(', ');
        throw new NoRouteError(405, `method ${method} not allowed on ${path}; allowed: ${allowed}`, { allow: allowed });
      }
      await handler(req, res, params);
      // A stream's GET (the dashboard's events) stays open after its headers: for HEAD they are the whole answer.
      if (method === 'HEAD' && res.headersSent && !res.writableEnded) res.end();
      return;
    }
    throw new NoRouteError(404, `no such endpoint ${path}${this.notFoundHint}`);
  }
}

function own(methods: Readonly<Record<string, Handler>>, method: string): Handler | undefined {
  return Object.hasOwn(methods, method) ? methods[method] : undefined;
}

/** A route's methods, with HEAD after GET where the route has GET and no HEAD of its own. */
function allowedMethods(methods: Readonly<Record<string, Handler>>): string[] {
  const names = Object.keys(methods);
  return names.flatMap((m) => (m === 'GET' && !names.includes('HEAD') ? ['GET', 'HEAD'] : [m]));
}

/**
 * A 404's hint: "; try GET /, GET /stats, PUT /link, ..." for every exact path the routes answer, with
 * each of its methods, so the hint names every endpoint there is and no other (a pattern's own
 * paths, /toxics/{name}, come under their listing's).
 */
export function routesHint(routes: readonly Route[]): string {
  const named = routes.flatMap((r) => (typeof r.path === 'string' ? Object.keys(r.methods).map((m) => `${m} ${r.path as string}`) : []));
  return named.length === 0 ? '' : `; try ${named.join(', ')}`;
}

/** The request target without its query string. */
export function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0]!;
}

/**
 * A query parameter the route needs (a 400 without it): for what a browser cannot carry in a path
 * segment, a toxic named "." or ".." (it removes such segments, percent-encoded too, before sending).
 */
export function requiredQueryParam(req: http.IncomingMessage, key: string): string {
  const value = queryParam(req, key);
  if (value === undefined) throw new HttpError(400, `missing ?${key}= in ${pathOf(req.url)}`);
  return value;
}

/**
 * A query parameter taken once, undefined when absent. A repeated one is a 400 naming it: read as its
 * first value, `/stats?node=a&node=b` answered for a alone, and the caller took it for both.
 */
export function queryParam(req: http.IncomingMessage, key: string): string | undefined {
  const values = new URL(req.url ?? '/', 'http://query').searchParams.getAll(key);
  if (values.length > 1) throw new HttpError(400, `?${key}= given ${values.length} times in ${pathOf(req.url)}; give it once`);
  return values[0];
}

function match(pattern: string | RegExp, path: string): Params | undefined {
  if (typeof pattern === 'string') return pattern === path ? [] : undefined;
  const m = pattern.exec(path);
  if (!m) return undefined;
  return m.slice(1).map((segment) => {
    try {
      return decodeURIComponent(segment ?? '');
    } catch {
      throw new HttpError(400, `malformed percent-encoding in ${path}`);
    }
  });
}
