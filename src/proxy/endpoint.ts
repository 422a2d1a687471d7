import { ConfigError } from '../errors.js';

export type Endpoint = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/**
 * Parses "host:port", "[::1]:port", ":port", "port", "unix:/path" or "/path" (a unix socket).
 * `flag` names the option in errors.
 */
export function parseEndpoint(text: string, flag: string, defaultHost = '127.0.0.1'): Endpoint {
  const s = String(text).trim();
  const accepts = 'host:port (port 0 = any free port), [ipv6]:port, or a unix socket as unix:/path or /path';
  if (s.startsWith('unix:')) {
    const path = s.slice(5);
    if (!path) throw new ConfigError(flag, text, accepts);
    return { kind: 'unix', path };
  }
  if (s.startsWith('/') || s.startsWith('./')) return { kind: 'unix', path: s };
  let host = defaultHost;
  let portText = s;
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(s);
  if (v6) {
    host = v6[1]!;
    portText = v6[2]!;
  } else if (s.includes(':')) {
    const i = s.lastIndexOf(':');
    host = s.slice(0, i) || defaultHost;
    portText = s.slice(i + 1);
  }
  if (!/^\d+$/.test(portText)) throw new ConfigError(flag, text, accepts);
  const port = Number(portText);
  if (port > 65535) throw new ConfigError(flag, text, accepts);
  return { kind: 'tcp', host, port };
}

export function formatEndpoint(e: Endpoint): string {
  if (e.kind === 'unix') return e.path;
  return e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
