import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { ConfigError } from '../errors.js';
import type { Endpoint } from '../endpoint.js';
import { generateTlsFiles } from '../redis/tls-certs.js';
import { checkPairGiven, LISTEN_TLS_FLAGS, loadListenTls, loadUpstreamTls, type ListenTlsOptions, type UpstreamTlsOptions } from './options.js';

export interface ProxyTls {
  upstream?: tls.ConnectionOptions;
  listen?: tls.TLSSocketOptions;
  /** The CA of a generated listener certificate: what clients must trust. */
  generatedCaFile?: string;
  /** Removes a generated certificate's directory. */
  cleanup(): void;
}

/** Redis serves TLS on a TCP port only: a unix-socket upstream with upstream TLS is a ConfigError naming --upstream-tls. */
export function checkUpstreamTlsOverTcp(upstreamOpt: boolean | UpstreamTlsOptions | undefined, upstream: Endpoint): void {
  if (upstreamOpt && upstream.kind === 'unix') throw new ConfigError('--upstream-tls', upstream.path, 'a host:port upstream (Redis serves TLS over TCP)');
}

/** Reads and checks both sides' TLS settings (ConfigError naming the flag), generating a listener pair when none is given. */
export function prepareProxyTls(
  upstreamOpt: boolean | UpstreamTlsOptions | undefined,
  listenOpt: boolean | ListenTlsOptions | undefined,
  upstream: Endpoint,
  log: (line: string) => void,
  listenHosts: readonly (string | undefined)[] = [],
): ProxyTls {
  const out: ProxyTls = { cleanup: () => undefined };
  if (upstreamOpt) {
    checkUpstreamTlsOverTcp(upstreamOpt, upstream);
    out.upstream = withSharedContext(loadUpstreamTls(upstreamOpt === true ? {} : upstreamOpt, upstream.kind === 'tcp' ? upstream.host : undefined, log));
  }
  if (listenOpt) {
    const l: ListenTlsOptions = listenOpt === true ? {} : listenOpt;
    checkPairGiven(l, LISTEN_TLS_FLAGS, ', or neither for a generated pair');
    let cert = l.cert;
    let key = l.key;
    if (cert === undefined || key === undefined) {
      const pair = generateListenPair(listenHosts);
      ({ certFile: cert, keyFile: key, caFile: out.generatedCaFile, cleanup: out.cleanup } = pair);
    }
    out.listen = withSharedServerContext(loadListenTls({ ...l, cert, key }));
  }
  return out;
}

/**
 * The upstream's CA and client certificate as one SecureContext, made once: given as `ca`, `cert`
 * and `key`, tls.connect() builds a context from them on every dial (parses the PEMs, a new
 * certificate store), ~0.6 ms of a 2.6 ms local handshake, while the client's first command waits.
 * Name, verification and session stay options of each dial.
 */
function withSharedContext(o: tls.ConnectionOptions): tls.ConnectionOptions {
  const { ca, cert, key, ...perDial } = o;
  return { ...perDial, secureContext: tls.createSecureContext({ ca, cert, key }) };
}

/**
 * The listener's certificate, key, client CA and highest version as one SecureContext for all its
 * clients, as a TLS server has: a context per connection parsed the pair on every accept and had
 * session ticket keys of its own, so no client could resume a session (a TLS 1.2 resumption saves
 * a round trip: a client that resumes with Redis paid the full handshake through the proxy).
 * Whether a client certificate is asked for stays an option of each connection.
 */
function withSharedServerContext(o: tls.TLSSocketOptions): tls.TLSSocketOptions {
  const { cert, key, ca, maxVersion, ...perSocket } = o;
  return { ...perSocket, secureContext: tls.createSecureContext({ cert, key, ca, maxVersion }) };
}

/**
 * Days a generated listener pair is valid. The files are read once, at start, and never renewed: at
 * the test helpers' 2 days a proxy left running over a weekend served an expired certificate, and
 * every verifying client failed its handshake. A year outlives any run; browsers' 398-day limit is
 * for public CAs only.
 */
const LISTEN_PAIR_DAYS = 365;

/**
 * The names a generated certificate holds besides localhost and 127.0.0.1: the hosts clients are
 * told to use (the listen host, `--announce-host`), and for a wildcard listen address this
 * machine's name and addresses. It held localhost and 127.0.0.1 only, so a client reaching
 * `--listen 10.0.0.5:6380` failed its hostname check (ioredis: ERR_TLS_CERT_ALTNAME_INVALID).
 */
function serverNames(hosts: readonly (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const host of hosts) {
    if (host === undefined || host === '') continue;
    // localhost may resolve to ::1 first: the proxy listens there and its listening line says [::1]:PORT,
    // an address a client then checks against the certificate (localhost and 127.0.0.1 only failed it).
    if (host === 'localhost') {
      out.push('::1');
      continue;
    }
    if (!WILDCARDS.has(host)) {
      out.push(host.replace(/^\[|\]$/g, ''));
      continue;
    }
    out.push(hostname());
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (!a.address.includes('%')) out.push(a.address);
  }
  return out;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * A throwaway CA and server certificate for `--listen-tls` without `--tls-cert`, in a private temp
 * dir that `cleanup` removes, for `hosts` (serverNames). Cluster mode makes one for all its listeners.
 */
export function generateListenPair(hosts: readonly (string | undefined)[] = []): { certFile: string; keyFile: string; caFile: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-tls-'));
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    return { ...generateTlsFiles(dir, { days: LISTEN_PAIR_DAYS, hosts: serverNames(hosts) }), cleanup };
  } catch (err) {
    cleanup();
    throw new ConfigError('--listen-tls', true, `--tls-cert/--tls-key, or openssl to generate a pair (${(err as Error).message})`);
  }
}
