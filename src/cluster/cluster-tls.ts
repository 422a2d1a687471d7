import type tls from 'node:tls';
import { parseEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import type { ProxyOptions } from '../proxy/types.js';
import { loadUpstreamTls, type ListenTlsOptions } from '../tls/options.js';
import { generateListenPair } from '../tls/setup.js';
import { certificateFlag } from './discover.js';

/**
 * `--upstream-tls` as the proxy's own discovery connections use it, per node host: the same CA,
 * client certificate and insecure flag as every node's connections, and the servername given or
 * else the host itself when it is a name (what tls.connect verifies against for each node proxy
 * too). Files are read and checked once (a ConfigError naming the flag); undefined without TLS.
 */
export function discoveryTls(options: ProxyOptions): ((host: string) => tls.ConnectionOptions) | undefined {
  const o = options.upstreamTls;
  if (!o) return undefined;
  const given = o === true ? {} : o;
  // The warning for --upstream-insecure comes from the node proxies; this copy is silent.
  const base = loadUpstreamTls(given, undefined, () => undefined);
  const byHost = new Map<string, tls.ConnectionOptions>();
  return (host) => {
    let per = byHost.get(host);
    if (!per) byHost.set(host, (per = { ...base, ...loadUpstreamTls({ servername: given.servername }, host, () => undefined) }));
    return per;
  };
}

/** Node's codes for a certificate of the server's chain outside its dates. */
const OUT_OF_DATE = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/**
 * A discovery failure that is a certificate not verifying, as the ConfigError to stop on: every
 * node connection would fail the same way, so it is a start-up error in `auto` and `on` alike.
 */
export function certificateError(options: ProxyOptions, err: unknown): ConfigError | undefined {
  const flag = options.upstreamTls ? certificateFlag((err as NodeJS.ErrnoException).code) : undefined;
  if (flag === undefined) return undefined;
  const o = options.upstreamTls === true || !options.upstreamTls ? {} : options.upstreamTls;
  const message = (err as Error).message;
  if (OUT_OF_DATE.has((err as NodeJS.ErrnoException).code ?? '')) {
    // The CA did sign it: blaming --upstream-ca sent the user to a file that is right. What is out of
    // date is on the server (or a CA of its chain), so the address is named (sentinel mode's options
    // carry its sentinels beside the first one as `upstream`).
    const sentinels = (options as { sentinels?: string[] }).sentinels;
    const [flag, value] = sentinels?.length ? ['--sentinel', sentinels.join(',')] : ['--upstream', options.upstream];
    return new ConfigError(flag, value, `a server whose certificate chain is valid now: a certificate in it has expired or is not valid yet, renew it (${message})`);
  }
  if (flag === '--upstream-cert') return new ConfigError(flag, o.cert, `a client certificate the upstream accepts (${message})`);
  if (flag === '--upstream-ca' && o.ca === undefined) {
    // No CA was given: the roots it failed against are Node's own, not a value the user typed.
    return new ConfigError(flag, undefined, `a CA that signed the upstream's certificate: it did not verify against Node's bundled roots (${message})`);
  }
  const value = flag === '--upstream-ca' ? o.ca : (o.servername ?? options.upstream);
  const what = flag === '--upstream-ca' ? 'a CA that signed' : 'a name in';
  return new ConfigError(flag, value, `${what} the upstream's certificate (${message})`);
}

/**
 * `--listen-tls` for every node's listener: the given pair, or one throwaway pair made here for all
 * of them (one CA for clients to trust), removed by `cleanup`.
 */
export function clusterListenTls(options: ProxyOptions): { listen?: ListenTlsOptions; caFile?: string; cleanup(): void } {
  const o = options.listenTls;
  if (!o) return { cleanup: () => undefined };
  const given: ListenTlsOptions = o === true ? {} : o;
  if (given.cert !== undefined || given.key !== undefined) return { listen: given, cleanup: () => undefined };
  const listen = parseEndpoint(options.listen ?? '127.0.0.1:0', '--listen');
  const pair = generateListenPair([listen.kind === 'tcp' ? listen.host : undefined, options.announceHost]);
  return { listen: { ...given, cert: pair.certFile, key: pair.keyFile }, caFile: pair.caFile, cleanup: pair.cleanup };
}
