import { BlockList, isIP } from 'node:net';
import { ConfigError } from './errors.js';

/**
 * Where something listens: the one parser and formatter of addresses (proxy --listen/--upstream/--control,
 * bench --redis, PrivateRedis.address). Text forms: "host:port", "[ipv6]:port", "unix:/path" or "/path".
 */
export type Endpoint = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

const LISTEN_ACCEPTS = 'host:port (port 0 = any free port), [ipv6]:port, or a unix socket as unix:/path or /path';
const ADDRESS_ACCEPTS = '"host:port" (port 1-65535) or "unix:/path/to.sock"';

/** Redis's port: what `--upstream localhost` means, as for redis-cli. */
export const REDIS_DEFAULT_PORT = 6379;

/**
 * Lenient, for what the proxy listens on or forwards to: also ":port", "port" (on `defaultHost`)
 * and "./path". `flag` names the option in errors. An address to listen on takes port 0 (any free
 * port); an address to connect to (`connectPort` given: the port a bare host means) refuses port 0.
 */
export function parseEndpoint(text: string, flag: string, defaultHost = '127.0.0.1', connectPort?: number): Endpoint {
  const s = String(text).trim();
  const connect = connectPort !== undefined;
  const accepts = connect
    ? `host:port (port ${connectPort} if left out), [ipv6]:port, or a unix socket as unix:/path or /path`
    : LISTEN_ACCEPTS;
  if (s.startsWith('unix:')) {
    const path = s.slice('unix:'.length);
    if (!path) throw new ConfigError(flag, text, accepts);
    return unixEndpoint(path, flag);
  }
  if (s.startsWith('/') || s.startsWith('./')) return unixEndpoint(s, flag);
  // An IPv6 host alone, as a name alone: the port it leaves out is connectPort ("[::1]" was read as host "[:", port "1]").
  if (connect && /^\[[0-9A-Fa-f:.]+\]$/.test(s)) return { kind: 'tcp', host: s.slice(1, -1), port: connectPort };
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
  } else if (connect && /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(s) && !/^\d+$/.test(s)) {
    return { kind: 'tcp', host: s, port: connectPort };
  }
  if (!/^\d+$/.test(portText)) throw new ConfigError(flag, text, accepts);
  const port = Number(portText);
  if (port > 65535 || (connect && port === 0)) throw new ConfigError(flag, text, accepts);
  return { kind: 'tcp', host, port };
}

/**
 * The longest unix socket path the system takes: sockaddr_un's sun_path less its NUL (108 bytes on
 * Linux, 104 on macOS and the BSDs).
 */
const MAX_UNIX_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

/**
 * A longer path is cut by the system without a word: the proxy listened on the cut path while its
 * `listening` line named the whole one, and the file it left there made the next start fail with
 * "address already in use" for a path where no file was.
 */
function unixEndpoint(path: string, flag: string): Endpoint {
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_UNIX_PATH_BYTES) {
    throw new ConfigError(flag, path, `a unix socket path of at most ${MAX_UNIX_PATH_BYTES} bytes (this one has ${bytes}; the system would cut it)`);
  }
  return { kind: 'unix', path };
}

/** An address to connect to Redis at: a bare host means port 6379; port 0 is refused. */
export function parseRedisEndpoint(text: string, flag: string): Endpoint {
  return parseEndpoint(text, flag, '127.0.0.1', REDIS_DEFAULT_PORT);
}

/** Strict, for a Redis to connect to: a host and a port 1-65535 are required ("6379" alone is refused). */
export function parseAddress(text: string, flag = '--redis'): Endpoint {
  const s = String(text).trim();
  const bad = () => new ConfigError(flag, text, ADDRESS_ACCEPTS);
  if (s.startsWith('./')) throw bad();
  if (s.startsWith('/')) return unixEndpoint(s, flag);
  if (s.startsWith('unix:') && s.length > 'unix:'.length) return unixEndpoint(s.slice('unix:'.length), flag);
  let e: Endpoint;
  try {
    e = parseEndpoint(s, flag, '');
  } catch {
    throw bad();
  }
  if (e.kind === 'tcp' && (e.host === '' || e.port < 1 || !/:\d{1,5}$/.test(s))) throw bad();
  // A URL (redis://user:pass@host:port) was taken as the host "redis://user:pass@host", and the connect
  // error echoed its password; it is refused with the password left out.
  if (e.kind === 'tcp' && /[/@\s]/.test(e.host)) {
    throw new ConfigError(flag, s.replace(/\/\/[^@/]*@/, '//(redacted)@'), `${ADDRESS_ACCEPTS}, not a URL`);
  }
  return e;
}

/** "host:port", "[ipv6]:port" or "unix:/path": what parseEndpoint and parseAddress read back. */
export function formatEndpoint(e: Endpoint): string {
  if (e.kind === 'unix') return `unix:${e.path}`;
  return e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`;
}

/** The options net.connect and ioredis take. */
export function connectOptions(e: Endpoint): { host: string; port: number } | { path: string } {
  return e.kind === 'unix' ? { path: e.path } : { host: e.host, port: e.port };
}

/** 127.0.0.0/8 and ::1, in any of their spellings (`::ffff:127.0.0.1`, `0:0:0:0:0:0:0:1`). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * True for addresses only this machine can reach. `--listen [::ffff:127.0.0.1]:6380` was warned of
 * as reachable from other machines: only `::1` and `127.` were known.
 */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** A DNS name (labels of letters, digits, "_" and inner "-"; "_" as Docker's service names have it) or an IPv4 address. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

/** True for a name a host can have on the network: no sign, slash, space or empty label (`-1`, `foo/bar`, `a..b`). */
export function isHostName(text: string): boolean {
  return HOST_NAME.test(text);
}
