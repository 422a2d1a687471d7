import { ConfigError } from '../errors.js';

/** Where a Redis (or a proxy) listens, in the form ioredis and net.connect accept. */
export type Endpoint = { host: string; port: number } | { path: string };

/** Parses "host:port", "[::1]:port" or "unix:/path" (a bare "/path" is read as a unix socket). */
export function parseAddress(text: string, flag = '--redis'): Endpoint {
  const s = text.trim();
  if (s.startsWith('unix:')) {
    const path = s.slice('unix:'.length);
    if (path === '') throw new ConfigError(flag, text, '"host:port" or "unix:/path/to.sock"');
    return { path };
  }
  if (s.startsWith('/')) return { path: s };
  const m = /^\[?([^\]]*?)\]?:(\d{1,5})$/.exec(s);
  const port = m ? Number(m[2]) : NaN;
  if (!m || m[1] === '' || port < 1 || port > 65535) {
    throw new ConfigError(flag, text, '"host:port" (port 1-65535) or "unix:/path/to.sock"');
  }
  return { host: m[1] as string, port };
}

export function formatEndpoint(e: Endpoint): string {
  return 'path' in e ? `unix:${e.path}` : `${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
}
