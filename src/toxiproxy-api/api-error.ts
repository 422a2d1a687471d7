import type http from 'node:http';
import { posix } from 'node:path';
import { ConfigError, NetworkError } from '../errors.js';
import { BodyError, HttpError } from '../http/json.js';
import { NoRouteError, pathOf } from '../http/router.js';
import { ToxicExistsError } from '../toxics/toxic-set.js';

/**
 * An error as toxiproxy's API sends it: `{"error": "<message>", "status": <code>}`. The messages
 * are toxiproxy's (api.go), so clients that match on them keep working; ours append the field.
 */
export class ApiError extends HttpError {
  override name = 'ApiError';
  constructor(message: string, status: number) {
    super(status, message);
  }

  toJSON(): { error: string; status: number } {
    return { error: this.message, status: this.status };
  }
}

/** A populate that failed part way: toxiproxy's body also lists the proxies it made or kept before. */
export class PopulateError extends ApiError {
  override name = 'PopulateError';
  constructor(
    cause: ApiError,
    readonly proxies: readonly { toJSON(): unknown }[],
  ) {
    super(cause.message, cause.status);
  }

  override toJSON(): { error: string; status: number; proxies: unknown[] | null } {
    return { ...super.toJSON(), proxies: populatedJson(this.proxies) };
  }
}

/**
 * POST /populate's `proxies`, in every reply, as toxiproxy writes it: null when there are none
 * (its proxiesWithToxics appends to a nil slice, which encodes as null), even for `[]`.
 */
export function populatedJson(proxies: readonly { toJSON(): unknown }[]): unknown[] | null {
  return proxies.length > 0 ? proxies.map((p) => p.toJSON()) : null;
}

export const badRequestBody = (why: string): ApiError => new ApiError(`bad request body: ${why}`, 400);
export const missingField = (field: string): ApiError => new ApiError(`missing required field: ${field}`, 400);
export const proxyNotFound = (): ApiError => new ApiError('proxy not found', 404);
export const proxyAlreadyExists = (): ApiError => new ApiError('proxy already exists', 409);
export const toxicNotFound = (): ApiError => new ApiError('toxic not found', 404);
export const toxicAlreadyExists = (): ApiError => new ApiError('toxic already exists', 409);
export const invalidStream = (): ApiError => new ApiError('stream was invalid, can be either upstream or downstream', 400);

/**
 * An error answer in toxiproxy's bytes. Its apiError writes the JSON with Go's http.Error: as
 * `text/plain; charset=utf-8`, `X-Content-Type-Options: nosniff`, a newline after the body. A path
 * no route has is gorilla/mux's `404 page not found`, the same way, or its 301 to the path cleaned
 * when that differs; a method the route lacks, a bare 405 (our Allow header kept, as HTTP asks).
 * POST /populate's errors are JSON (routes.ts), as there.
 */
export function sendApiError(res: http.ServerResponse, status: number, reason: string, err?: unknown): void {
  if (err instanceof NoRouteError && status === 405) return void res.writeHead(405, { 'content-length': 0 }).end();
  const clean = err instanceof NoRouteError && status === 404 ? cleanLocation(res.req.url ?? '/') : undefined;
  if (clean !== undefined) return void res.writeHead(301, { location: clean, 'content-length': 0 }).end();
  const text = err instanceof NoRouteError && status === 404 ? '404 page not found' : JSON.stringify(new ApiError(reason, status));
  sendGoText(res, status, `${text}\n`);
}

/**
 * gorilla/mux cleans a path before it routes it and redirects when that changed it: `//proxies`, as
 * a client whose base URL ends in `/` sends it, is a 301 to `/proxies` (a GET then works there, as
 * against toxiproxy). Only where no route answered: here `/proxies/./toxics` is a proxy named "."
 * (docs/toxiproxy.md, Limits). Undefined when the path is clean.
 */
function cleanLocation(url: string): string | undefined {
  const path = pathOf(url);
  const clean = posix.normalize(path);
  // A browser reads a Location of `/\host` as `//host`, another site: no redirect where a backslash is.
  return clean === path || clean.includes('\\') ? undefined : clean + url.slice(path.length);
}

function sendGoText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Maps our typed errors onto toxiproxy's statuses: bad input 400, no such route 404 (405 for the
 * method), a body over the limit 413, anything else (a listen failure) 500.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof BodyError && err.reason !== 'too-large') return badRequestBody(err.message);
  if (err instanceof HttpError) return new ApiError(err.message, err.status);
  if (err instanceof ToxicExistsError) return toxicAlreadyExists();
  if (err instanceof ConfigError) {
    if (err.flag === 'stream') return invalidStream();
    if (err.flag === 'type') return new ApiError(`invalid toxic type: ${err.message}`, 400);
    return badRequestBody(err.message);
  }
  if (err instanceof NetworkError) return new ApiError(err.message, 500);
  return new ApiError(err instanceof Error ? err.message : String(err), 500);
}
