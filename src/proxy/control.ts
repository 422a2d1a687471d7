import http from 'node:http';
import type { Duplex } from 'node:stream';
import { ConfigError, NetworkError } from '../errors.js';
import type { LinkUpdate } from '../link/types.js';
import type { ConnectionInfo, StatsSnapshot } from '../stats/types.js';
import { formatEndpoint, type Endpoint } from './endpoint.js';
import type { ToxicSet } from '../toxics/toxic-set.js';
import { toxicRoutes } from './control-toxics.js';
import { HttpGuard } from './http-guard.js';

export interface ControlHandlers {
  stats(): StatsSnapshot;
  metrics(): string;
  /** `node` is PUT /link?node=SELECTOR (cluster mode); a single-node proxy ignores it. */
  setLink(update: LinkUpdate & { preset?: string }, node?: string): unknown;
  reset(): void;
  connections(): ConnectionInfo[];
  /** The proxy's toxics (GET/POST /toxics, PATCH/DELETE /toxics/{name}, toxiproxy's JSON). */
  toxics?: ToxicSet;
}

const MAX_BODY_BYTES = 64 * 1024;
/** Node's parser errors that have a more precise status than 400. */
const CLIENT_ERROR_STATUS: Record<string, number> = { HPE_HEADER_OVERFLOW: 431, ERR_HTTP_REQUEST_TIMEOUT: 408 };
const LINK_KEYS = new Set(['rttUs', 'upUs', 'downUs', 'jitterUs', 'jitterDist', 'bandwidthBps', 'preset']);

/**
 * The HTTP control endpoint: GET /stats, GET /metrics, GET /connections, PUT /link, POST /reset.
 * Errors are JSON `{"error": "..."}` with a 4xx status; nothing here can take the proxy down.
 */
export class ControlServer {
  private readonly server: http.Server;
  private guard: HttpGuard | undefined;
  address = '';

  constructor(
    private readonly handlers: ControlHandlers,
    private readonly access: { token?: string; allowHosts?: readonly string[] } = {},
  ) {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => sendJson(res, 500, { error: String(err) }));
    });
    this.server.keepAliveTimeout = 5000;
    // Broken HTTP never reaches handle(): answer it in the same JSON shape instead of Node's bare 400.
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      if (err.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      const status = CLIENT_ERROR_STATUS[err.code ?? ''] ?? 400;
      const text = JSON.stringify({ error: `${http.STATUS_CODES[status]}: malformed HTTP request (${err.code ?? 'parse error'})` });
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
    });
  }

  async listen(at: Endpoint): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void =>
        reject(new NetworkError(`--control ${formatEndpoint(at)}: ${err.code === 'EADDRINUSE' ? 'address already in use' : err.message}`, err.code));
      this.server.once('error', onError);
      const done = (): void => {
        this.server.off('error', onError);
        resolve();
      };
      if (at.kind === 'unix') this.server.listen(at.path, done);
      else this.server.listen({ host: at.host, port: at.port }, done);
    });
    const a = this.server.address();
    this.address = a && typeof a === 'object' ? formatEndpoint({ kind: 'tcp', host: a.address, port: a.port }) : String(a);
    // The guard needs the port actually bound (port 0 picks one).
    this.guard = new HttpGuard({
      bound: a && typeof a === 'object' ? { kind: 'tcp', host: at.kind === 'tcp' ? at.host : a.address, port: a.port } : { kind: 'unix' },
      allowHosts: this.access.allowHosts,
      token: this.access.token,
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private toxicRoute(req: http.IncomingMessage, res: http.ServerResponse, path: string, toxics: ToxicSet): Promise<void> {
    return toxicRoutes(req, res, path, toxics);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const decision = this.guard?.check(req.headers) ?? { allow: false, status: 403, reason: 'not listening' };
    if (!decision.allow) {
      req.resume();
      return sendJson(res, decision.status, { error: decision.reason });
    }
    const path = (req.url ?? '/').split('?')[0];
    const route = `${req.method} ${path}`;
    if (this.handlers.toxics && (path === '/toxics' || path?.startsWith('/toxics/'))) return this.toxicRoute(req, res, path, this.handlers.toxics);
    switch (route) {
      case 'GET /stats':
        return sendJson(res, 200, this.handlers.stats());
      case 'GET /connections':
        return sendJson(res, 200, { connections: this.handlers.connections() });
      case 'GET /metrics':
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(this.handlers.metrics());
        return;
      case 'GET /link':
        return sendJson(res, 200, this.handlers.stats().link);
      case 'PUT /link':
      case 'POST /link': {
        const body = await readJson(req, res);
        if (body === undefined) return;
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          return sendJson(res, 400, { error: 'body must be a JSON object like {"rttUs": 1200}' });
        }
        const unknown = Object.keys(body).filter((k) => !LINK_KEYS.has(k));
        if (unknown.length > 0) {
          return sendJson(res, 400, { error: `unknown field(s) ${unknown.join(', ')}; accepted: ${[...LINK_KEYS].join(', ')}` });
        }
        try {
          const node = new URL(req.url ?? '/', 'http://control').searchParams.get('node') ?? undefined;
          return sendJson(res, 200, this.handlers.setLink(body as LinkUpdate, node));
        } catch (err) {
          if (err instanceof ConfigError) return sendJson(res, 400, { error: err.message });
          throw err;
        }
      }
      case 'POST /reset':
        req.resume();
        this.handlers.reset();
        return sendJson(res, 200, { reset: true });
      default: {
        req.resume();
        const known = ['/stats', '/connections', '/metrics', '/link', '/reset'];
        if (path && known.includes(path)) return sendJson(res, 405, { error: `method ${req.method} not allowed on ${path}` });
        return sendJson(res, 404, { error: `no such endpoint ${path}; try GET /stats, GET /metrics, GET /connections, PUT /link, POST /reset` });
      }
    }
  }
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function readJson(req: http.IncomingMessage, res: http.ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      sendJson(res, 413, { error: `body larger than ${MAX_BODY_BYTES} bytes` });
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    sendJson(res, 400, { error: 'body is not valid JSON' });
    return undefined;
  }
}
