import http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Endpoint } from '../endpoint.js';
import { HttpGuard } from './guard.js';
import { BodyError, HttpError, sendJson } from './json.js';
import { listenRemovingStale } from './listen.js';
import { pathOf, type Router } from './router.js';
import { tokenCookie } from './token-cookie.js';

export interface HttpEndpointOptions {
  router: Router;
  /** The flag the address came from, for listen errors ("--control", "--api"). */
  flag: string;
  /** Who may call (src/http/guard.ts); checked before any route. */
  access: { token?: string; allowHosts?: readonly string[] };
  /** A thrown error (HttpError, a typed error, anything) as the status and reason to answer with. */
  classify(err: unknown): { status: number; reason: string };
  /** The JSON body of an error answer: each API has its own shape. */
  errorBody(status: number, reason: string): unknown;
  /**
   * Writes an error answer to a request (`err` what was thrown; none for the guard's refusal), where
   * an API's clients expect other bytes than errorBody's JSON: toxiproxy's API answers as Go's
   * http.Error does. @default errorBody's JSON as application/json
   */
  writeError?(res: http.ServerResponse, status: number, reason: string, err?: unknown): void;
  /**
   * Pages a browser may open once as `PATH?token=T` (the dashboard): a right token there is
   * answered with the token cookie and a redirect to PATH without the token (the rest of the
   * query kept). @default none
   */
  tokenPages?: readonly string[];
  /** How much one client may hold of the endpoint. @default HTTP_LIMITS */
  limits?: HttpLimits;
}

/**
 * What the endpoint lets its clients hold. Every connection is a descriptor the proxy's own clients
 * need too (two each), and a client can hold one before the guard reads a header: unbounded, a
 * crowd of unfinished requests (slowloris), the token not needed, left the proxy unable to accept.
 */
export interface HttpLimits {
  /** Connections open at once (event streams included); past it a new one is answered 503 and closed. */
  maxConnections: number;
  /** A request's headers must be in within this long (408 after it). */
  headersTimeoutMs: number;
  /** The whole request, body included, within this long (408 after it); the answer may take longer. */
  requestTimeoutMs: number;
}

export const HTTP_LIMITS: HttpLimits = { maxConnections: 256, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 };

/** How long a connection past the cap, answered 503, may stay before it is closed (its client closes first). */
const REFUSED_CLOSE_MS = 1000;

/**
 * How long close() lets the answers already under way finish (a Prometheus scrape, a /stats read
 * as the proxy stops) before it cuts the connections still open: they were reset at once.
 */
export const CLOSE_DRAIN_MS = 1000;

/** Node's parser errors that have a more precise status than 400. */
const CLIENT_ERROR_STATUS: Record<string, number> = { HPE_HEADER_OVERFLOW: 431, ERR_HTTP_REQUEST_TIMEOUT: 408 };

/**
 * An HTTP server that answers JSON: the guard first, then the router; every error, broken HTTP
 * included, is a JSON body in the endpoint's shape. Nothing a client sends can take it down.
 */
export class HttpEndpoint {
  private readonly server: http.Server;
  private guard: HttpGuard | undefined;
  /** Connections past the cap: answered 503 as they come, their requests then left alone. */
  private readonly refused = new WeakSet<Duplex>();
  /** Answers under way: close() lets them finish (CLOSE_DRAIN_MS at most). */
  private readonly answering = new Set<http.ServerResponse>();
  private closing = false;
  /** "host:port" (or the socket path) once listening. */
  address = '';

  constructor(private readonly o: HttpEndpointOptions) {
    const limits = o.limits ?? HTTP_LIMITS;
    // Node checks the two timeouts on this interval (30 s by default, which would triple the headers'):
    // half of it keeps them within half again, at one wake every few seconds.
    const checkMs = Math.max(10, Math.floor(limits.headersTimeoutMs / 2));
    this.server = http.createServer({ connectionsCheckingInterval: checkMs }, (req, res) => {
      this.answering.add(res);
      res.once('close', () => this.answering.delete(res));
      // Closing: the answer is the connection's last, so the drain does not wait on a kept-alive socket.
      if (this.closing) res.shouldKeepAlive = false;
      void this.handle(req, res);
    });
    this.server.keepAliveTimeout = 5000;
    // Not Node's maxConnections, which closes a connection past it unanswered: Node's own fetch
    // (undici) left a request it had sent on one pending forever (1000 concurrent fetches of
    // /stats: 744 never settled). A 503 settles each. The answered ones are capped as well, so a
    // flood of connections costs at most twice the cap in descriptors.
    let open = 0;
    let answering = 0;
    this.server.prependListener('connection', (socket: net.Socket) => {
      if (open < limits.maxConnections) {
        open++;
        socket.once('close', () => open--);
      } else if (answering < limits.maxConnections) {
        answering++;
        socket.once('close', () => answering--);
        this.refuse(socket, limits.maxConnections);
      } else {
        socket.destroy();
      }
    });
    this.server.headersTimeout = limits.headersTimeoutMs;
    this.server.requestTimeout = limits.requestTimeoutMs;
    // Broken HTTP never reaches handle(): answer it in the same JSON shape instead of Node's bare 400.
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      if (err.code === 'ECONNRESET' || !socket.writable || this.refused.has(socket)) {
        socket.destroy();
        return;
      }
      const status = CLIENT_ERROR_STATUS[err.code ?? ''] ?? 400;
      const why = status === 408 ? `the request was not in within ${limits.headersTimeoutMs} ms (its headers) or ${limits.requestTimeoutMs} ms (all of it)` : `malformed HTTP request (${err.code ?? 'parse error'})`;
      const text = JSON.stringify(o.errorBody(status, `${http.STATUS_CODES[status]}: ${why}`));
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
    });
  }

  /** A 503 for a connection past the cap, then its close: by its client once read, else by us. */
  private refuse(socket: net.Socket, max: number): void {
    this.refused.add(socket);
    const text = JSON.stringify(this.o.errorBody(503, `Service Unavailable: ${max} control connections are open; try again`));
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
    const timer = setTimeout(() => socket.destroy(), REFUSED_CLOSE_MS).unref();
    socket.once('close', () => clearTimeout(timer));
  }

  /** `log` hears of a stale unix socket file removed from the path (listenRemovingStale). */
  async listen(at: Endpoint, log: (line: string) => void = () => undefined): Promise<void> {
    const bound = await listenRemovingStale(this.server, at, this.o.flag, log);
    this.address = bound.address;
    // The guard needs the port actually bound (port 0 picks one), and the host as given.
    this.guard = new HttpGuard({
      bound: bound.port === undefined ? { kind: 'unix' } : { kind: 'tcp', host: at.kind === 'tcp' ? at.host : bound.host!, port: bound.port },
      allowHosts: this.o.access.allowHosts,
      token: this.o.access.token,
    });
  }

  /** `?token=` of a GET on a token page, else undefined. */
  private pageToken(req: http.IncomingMessage): string | undefined {
    if (req.method !== 'GET' || !this.o.tokenPages?.includes(pathOf(req.url))) return undefined;
    return new URL(req.url ?? '/', 'http://endpoint').searchParams.get('token') ?? undefined;
  }

  /**
   * Stops accepting and closes the idle connections at once; the answers under way get CLOSE_DRAIN_MS
   * to finish, each connection closed after its answer, then what is left is cut.
   */
  async close(): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const res of this.answering) {
      if (!res.headersSent) res.shouldKeepAlive = false;
      else res.once('finish', () => res.socket?.end());
    }
    const cut = setTimeout(() => this.server.closeAllConnections(), CLOSE_DRAIN_MS);
    await closed;
    clearTimeout(cut);
  }

  private sendError(res: http.ServerResponse, status: number, reason: string, err?: unknown): void {
    if (this.o.writeError) this.o.writeError(res, status, reason, err);
    else sendJson(res, status, this.o.errorBody(status, reason));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Answered 503 already (refuse()): the request that follows it on the socket is not served.
    if (this.refused.has(req.socket)) return;
    const queryToken = this.pageToken(req);
    const decision = this.guard?.check(req.headers, { method: req.method, queryToken }) ?? { allow: false, status: 403, reason: 'not listening' };
    if (!decision.allow) {
      // A 401 names the scheme that would pass (RFC 9110 asks every 401 for one).
      if (decision.status === 401) res.setHeader('www-authenticate', 'Bearer');
      return this.sendError(res, decision.status, decision.reason);
    }
    if (queryToken !== undefined) {
      // The token leaves the address bar (and the history entry the browser keeps of it) at once.
      const cookie = this.guard!.hasToken ? { 'set-cookie': tokenCookie(this.guard!.cookieName, queryToken) } : {};
      const url = new URL(req.url ?? '/', 'http://endpoint');
      url.searchParams.delete('token');
      res.writeHead(303, { location: url.pathname + url.search, 'cache-control': 'no-store', ...cookie });
      return void res.end();
    }
    try {
      await this.o.router.handle(req, res);
    } catch (err) {
      if (res.headersSent) return void res.destroy();
      const { status, reason } = this.o.classify(err);
      if (err instanceof HttpError) for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
      this.sendError(res, status, reason, err);
      // The rest of an oversized body is never read: drop the connection rather than drain it.
      if (err instanceof BodyError && err.reason === 'too-large') req.destroy();
    }
  }
}
