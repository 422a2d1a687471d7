/**
 * TODO(security): replace with src/proxy/http-guard.ts once the security branch lands in main; this
 * is the minimum so `redis-rtt server` is not open to browsers meanwhile.
 *
 * A page in a browser on this machine can reach 127.0.0.1:8474 (DNS rebinding sends its own name as
 * Host; cross-site requests carry Origin). So: Host must be a loopback name, the bound address or an
 * --allow-host entry (`name` any port, `name:port` one port); an Origin must pass the same test;
 * then the token, when one is set. toxiproxy itself only refuses a `Mozilla/` User-Agent.
 */
import { timingSafeEqual, createHash } from 'node:crypto';

export type GuardDecision = { allow: true } | { allow: false; status: 401 | 403; reason: string };

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

export class ApiGuard {
  private readonly allow: { name: string; port?: number }[];
  private readonly token: Buffer | undefined;

  constructor(
    private readonly bound: { host: string; port: number },
    allowHosts: readonly string[] = [],
    token?: string,
  ) {
    this.allow = allowHosts.map((h) => parseHost(h) ?? { name: h.toLowerCase() });
    this.token = token === undefined ? undefined : sha(token);
  }

  check(h: { host?: string; origin?: string; authorization?: string }): GuardDecision {
    if (!h.host || !this.hostOk(h.host)) {
      return { allow: false, status: 403, reason: `Host ${JSON.stringify(h.host ?? '')} is not this API; start with --allow-host NAME to accept it` };
    }
    if (h.origin !== undefined) {
      const m = /^https?:\/\/([^/?#]+)$/i.exec(h.origin.trim());
      if (!m || !this.hostOk(m[1]!)) return { allow: false, status: 403, reason: `cross-origin request from ${JSON.stringify(h.origin)} refused` };
    }
    if (this.token) {
      const a = h.authorization ?? '';
      if (!timingSafeEqual(sha(a.startsWith('Bearer ') ? a.slice(7) : ''), this.token)) {
        return { allow: false, status: 401, reason: 'missing or wrong token: send "Authorization: Bearer <api token>"' };
      }
    }
    return { allow: true };
  }

  private hostOk(text: string): boolean {
    const p = parseHost(text);
    if (!p) return false;
    const port = p.port ?? 80;
    if (this.allow.some((a) => a.name === p.name && (a.port === undefined || a.port === port))) return true;
    return port === this.bound.port && (LOOPBACK.has(p.name) || p.name === this.bound.host.toLowerCase());
  }
}

function parseHost(text: string): { name: string; port?: number } | undefined {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(text.trim().toLowerCase());
  if (!m) return undefined;
  return { name: m[1] ?? m[2]!, port: m[3] === undefined ? undefined : Number(m[3]) };
}

function sha(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}
