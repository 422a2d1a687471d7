import { ConfigError } from '../errors.js';
import { formatEndpoint, parseRedisEndpoint } from '../endpoint.js';
import { startSingleNodeProxy } from '../proxy/index.js';
import { checkOptionKeys } from '../proxy/option-keys.js';
import type { ProxyOptions, RedisRttProxy } from '../proxy/types.js';
import type { RedisRttClusterProxy } from './cluster-view.js';
import type { StartNodeProxy } from './node-starter.js';
import { startClusterProxy } from './start-cluster.js';
import { certificateError, discoveryTls } from './cluster-tls.js';
import { discoverCluster } from './discover.js';
import { CLUSTER_OPTIONS } from '../proxy/cluster-options.js';
import { parseWith } from '../validation/schema.js';
import { checkClientZones, checkZones, parseClusterMode, parsePortRange } from './options.js';

/**
 * startProxy's first step: with `cluster: 'auto'` or `'on'`, ask the upstream whether it is a
 * cluster node and, if so, start cluster mode. Undefined means: run as a single-node proxy.
 * `auto` falls back to single-node when the upstream is a unix socket or cannot be asked now (the
 * single-node proxy dials per client and copes with a Redis that comes later); `on` never does.
 * A certificate that does not verify stops both (every connection would fail alike).
 */
export async function maybeStartCluster(options: ProxyOptions, startNodeProxy: StartNodeProxy): Promise<RedisRttClusterProxy | undefined> {
  const mode = parseClusterMode(options.cluster, 'cluster');
  if (mode === 'off') return undefined;
  const upstream = parseRedisEndpoint(options.upstream, '--upstream');
  if (upstream.kind !== 'tcp') {
    if (mode === 'on') throw new ConfigError('--upstream', options.upstream, 'host:port of a cluster node (--cluster on needs TCP)');
    return undefined;
  }
  // Over TLS with --upstream-tls (a ConfigError here for a bad file), as every node's connections.
  const secure = discoveryTls(options);
  let found;
  try {
    const auth = { user: options.upstreamUser, password: options.upstreamPassword };
    found = await discoverCluster(upstream.host, upstream.port, { ...auth, tls: secure?.(upstream.host) });
  } catch (err) {
    const badCertificate = certificateError(options, err);
    if (badCertificate) throw badCertificate;
    if (mode === 'on') throw err;
    options.log?.(`--cluster auto: ${(err as Error).message}; running as a single-node proxy`);
    return undefined;
  }
  if (!found.enabled) {
    if (mode === 'on') throw new ConfigError('--cluster', 'on', `auto or off: ${formatEndpoint(upstream)} is not a cluster node (INFO cluster says cluster_enabled:0)`);
    return undefined;
  }
  return startClusterProxy(options, startNodeProxy, found, secure);
}

/**
 * startProxy: cluster mode when `cluster` asks for it (or `auto` finds a cluster node), else one
 * listener (src/proxy). It lives in cluster/ so the proxy folder never imports cluster. Its
 * ConfigErrors name CLI flags (`redis-rtt proxy` calls it); the package exports it through
 * src/api/key-errors.ts, which names the option keys.
 */
export async function startProxy(options: ProxyOptions): Promise<RedisRttProxy> {
  // Keys first: options that are no object (null, 5) were refused as a missing `upstream`.
  checkOptionKeys(options);
  if (typeof options.upstream !== 'string') return startSingleNodeProxy(options);
  const clustered = await maybeStartCluster(options, (o, node) => startSingleNodeProxy({ ...o, cluster: 'off' }, node));
  if (clustered) return clustered;
  refuseNodeOptions(options);
  return startSingleNodeProxy(options);
}

/**
 * One listener has no nodes to place in zones or to pick with a selector: refused rather than
 * ignored. A single Redis started with --zones 3 or --node-link masters=cross-az ran with no delay
 * at all, without a word, where the user meant to measure a link.
 */
function refuseNodeOptions(options: ProxyOptions): void {
  // A value that is wrong in any mode is named as such first: fixing the mode would not fix it.
  checkClientZones(options.clientZones, options.zones ?? Infinity);
  checkZones(options.zones);
  if (options.listenPorts !== undefined) parsePortRange(options.listenPorts);
  if (options.announceHost !== undefined) parseWith(CLUSTER_OPTIONS.announceHost, options.announceHost, () => '--announce-host');
  const only = 'cluster or Sentinel mode only (--cluster on, or auto against a cluster node; --sentinel)';
  if (options.clientZones !== undefined) throw new ConfigError('--client-zones', String(options.clientZones), `${only}; drop it for a single Redis`);
  if (options.zones !== undefined) throw new ConfigError('--zones', String(options.zones), `${only}; for a single Redis give its link (--rtt, --preset)`);
  const rule = options.nodeLinks?.[0];
  if (rule !== undefined) throw new ConfigError('--node-link', rule, `${only}; for a single Redis give its link (--rtt, --preset)`);
  for (const [flag, link] of [['--same-zone-link', options.sameZoneLink], ['--cross-zone-link', options.crossZoneLink]] as const) {
    if (link !== undefined) throw new ConfigError(flag, link, `${only}, with --zones; for a single Redis give its link (--rtt, --preset)`);
  }
  // Both place or name the listeners of the other nodes, of which one Redis has none: a user who
  // gave them expected those listeners (or rewritten replies) and got neither, without a word.
  if (options.listenPorts !== undefined) throw new ConfigError('--listen-ports', options.listenPorts, `${only}; a single Redis has one listener, --listen`);
  if (options.announceHost !== undefined) {
    throw new ConfigError('--announce-host', options.announceHost, `${only}; a single Redis's replies are not rewritten, so no host is announced`);
  }
}
