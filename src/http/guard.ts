/**
 * Who may talk to an HTTP control endpoint (the proxy's --control, and `redis-rtt server`).
 *
 * A browser on the same machine can reach 127.0.0.1: a page can send "simple" cross-site requests
 * (no preflight for text/plain POSTs), and DNS rebinding lets a page on evil.example read answers
 * with `Host: evil.example`. The content type is no defence (toxiproxy's own clients send JSON
 * without one), so the checks are:
 * - Host must name this endpoint: the bound address, or localhost / 127.0.0.1 / [::1] with its
 *   port, or a name given with --allow-host (`name` for any port, `name:port` for one). A rebinding
 *   page can only send its own name. Bound to a wildcard address (0.0.0.0, ::) with a token and no
 *   --allow-host, any Host passes: the user opted into remote access and the token is the defence.
 * - A request with an Origin header (browsers send one on cross-site requests; `null` from
 *   sandboxes and file:) passes only if that origin is this endpoint by the same Host rules.
 * - Then the token, if one is set, compared in constant time. It comes in the Authorization header,
 *   or from a browser in the dashboard's cookie (src/http/token-cookie.ts), or once in the page's
 *   `?token=` (the endpoint passes it only for that page). The cookie counts for a request that
 *   changes something only when the request carries an Origin that passed the check above: a
 *   browser always sends one on such requests, so a cookie without it is not a page of ours.
 * Pure: a decision from headers, no I/O.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { isHostName, isLoopback } from '../endpoint.js';
import { readCookie, tokenCookieName } from './token-cookie.js';

export interface HttpGuardOptions {
  /** The address the server is bound to; a unix socket has no Host to check. */
  bound: { kind: 'tcp'; host: string; port: number } | { kind: 'unix' };
  /** Extra Host names (`--allow-host`, repeatable): `name` (any port) or `name:port`. @default [] */
  allowHosts?: readonly string[];
  /** When set, requests must carry `Authorization: Bearer <token>`. @default none */
  token?: string;
}

export type GuardDecision = { allow: true } | { allow: false; status: 401 | 403; reason: string };

/** The request headers the guard reads (Node's IncomingHttpHeaders fits). */
export interface GuardHeaders {
  host?: string;
  origin?: string;
  authorization?: string;
  cookie?: string;
}

/** What the guard reads beside the headers. */
export interface GuardRequest {
  /** GET and HEAD change nothing: the token cookie counts for them without an Origin. @default 'GET' */
  method?: string;
  /** The page's `?token=`, when the endpoint accepts one on this path. */
  queryToken?: string;
}

export const WILDCARD_HOSTS: readonly string[] = ['0.0.0.0', '::', '0:0:0:0:0:0:0:0'];
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

export class HttpGuard {
  private readonly allow: { name: string; port: number | undefined }[];
  private readonly tokenDigest: Buffer | undefined;
  private readonly anyHost: boolean;
  /** The cookie a browser keeps the token in (src/http/token-cookie.ts). */
  readonly cookieName: string;

  constructor(private readonly o: HttpGuardOptions) {
    this.allow = (o.allowHosts ?? []).map((h) => parseAllowHost(h));
    this.tokenDigest = o.token === undefined ? undefined : digest(o.token);
    this.anyHost = o.bound.kind === 'unix' || (WILDCARD_HOSTS.includes(o.bound.host) && o.token !== undefined && this.allow.length === 0);
    this.cookieName = tokenCookieName(o.bound.kind === 'tcp' ? o.bound.port : undefined);
  }

  /** True when the endpoint has a token (the dashboard then sets its cookie). */
  get hasToken(): boolean {
    return this.tokenDigest !== undefined;
  }

  /** Allow, or refuse with a status (403 foreign Host/Origin, 401 token) and a reason for the JSON error. */
  check(headers: GuardHeaders, request: GuardRequest = {}): GuardDecision {
    const host = headers.host;
    if (!this.anyHost) {
      if (host === undefined || host === '') return refuse(403, 'missing Host header');
      if (!this.hostOk(host)) {
        return refuse(403, `Host ${JSON.stringify(host)} is not this endpoint; start with --allow-host ${stripPort(host)} to accept it`);
      }
    }
    const origin = headers.origin;
    if (origin !== undefined && !this.originOk(origin)) {
      return refuse(403, `cross-origin request from ${JSON.stringify(origin)} refused`);
    }
    if (this.tokenDigest !== undefined) {
      // A page's ?token= is checked alone: the cookie it sets must hold a right token.
      const given = request.queryToken !== undefined ? [request.queryToken] : [bearer(headers.authorization)];
      const method = request.method ?? 'GET';
      if (request.queryToken === undefined && (origin !== undefined || method === 'GET' || method === 'HEAD')) {
        given.push(readCookie(headers.cookie, this.cookieName));
      }
      if (!given.some((t) => t !== undefined && timingSafeEqual(digest(t), this.tokenDigest!))) {
        return refuse(401, 'missing or wrong token: send "Authorization: Bearer <control token>" (a browser: open the dashboard once as /?token=<control token>)');
      }
    }
    return { allow: true };
  }

  private hostOk(hostHeader: string): boolean {
    const parsed = parseHostHeader(hostHeader);
    if (parsed === undefined) return false;
    const bound = this.o.bound;
    if (bound.kind === 'unix') return true;
    const port = parsed.port ?? 80;
    for (const a of this.allow) if (a.name === parsed.name && (a.port === undefined || a.port === port)) return true;
    if (port !== bound.port) return false;
    return parsed.name === bound.host.toLowerCase() || LOOPBACK_NAMES.includes(parsed.name);
  }

  private originOk(origin: string): boolean {
    const m = /^https?:\/\/([^/?#]+)$/i.exec(origin.trim());
    if (!m) return false; // `null`, file:, chrome-extension:, anything with a path
    if (this.anyHost && this.o.bound.kind === 'tcp') return false;
    return this.hostOk(m[1]!);
  }
}

/**
 * Refuses a start that would expose the endpoint with nothing guarding it: bound to a wildcard
 * address without --allow-host or a token (`token` says how to give one). Returns the warning to log
 * for any non-loopback bind.
 */
export function bindPolicy(o: HttpGuardOptions, flag: string, token = '--control-token (or REDIS_RTT_CONTROL_TOKEN)'): string | undefined {
  if (o.bound.kind === 'unix') return undefined;
  const host = o.bound.host;
  for (const h of o.allowHosts ?? []) parseAllowHost(h, '--allow-host');
  if (WILDCARD_HOSTS.includes(host) && (o.allowHosts ?? []).length === 0 && o.token === undefined) {
    throw new ConfigError(flag, host, `a loopback address, or --allow-host NAME or ${token} to accept remote requests`);
  }
  if (isLoopback(host)) return undefined;
  return `control endpoint on ${host} is reachable from other machines${o.token === undefined ? ' and has no control token (only the Host check guards it)' : ''}`;
}

function refuse(status: 401 | 403, reason: string): GuardDecision {
  return { allow: false, status, reason };
}

/** The token of an `Authorization: Bearer <token>` header; the scheme in any case (RFC 7235). */
function bearer(auth: string | undefined): string | undefined {
  return auth !== undefined && auth.length > 7 && auth.slice(0, 7).toLowerCase() === 'bearer ' ? auth.slice(7) : undefined;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** "name", "name:port", "[v6]" or "[v6]:port", lower-cased; undefined when malformed. */
function parseHostHeader(text: string): { name: string; port: number | undefined } | undefined {
  const s = text.trim().toLowerCase();
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(s);
  if (!m) return undefined;
  const port = m[3] === undefined ? undefined : Number(m[3]);
  if (port !== undefined && port > 65535) return undefined;
  return { name: m[1] ?? m[2]!, port };
}

/**
 * One `--allow-host` entry (`allowHosts[i]` of a config file): `name` or `name:port`, as a Host
 * header carries it. Only what a Host header can name: `-1`, `foo/bar` or port 0 could never match
 * one, so they were a typo accepted without a word.
 */
export function parseAllowHost(text: string, flag = 'allowHosts'): { name: string; port: number | undefined } {
  const parsed = typeof text === 'string' ? parseHostHeader(text) : undefined;
  // A bracketed IPv6 address is all hex digits, colons and dots (parseHostHeader); anything else is a name.
  const nameOk = parsed !== undefined && (parsed.name.includes(':') || isHostName(parsed.name));
  if (!nameOk || parsed.port === 0) {
    throw new ConfigError(flag, text, 'a host name (letters, digits, dots, "-" inside a label) or an address ([v6] in brackets), optionally with :port (1-65535)');
  }
  return parsed;
}

function stripPort(host: string): string {
  return parseHostHeader(host)?.name ?? 'NAME';
}
