import type tls from 'node:tls';
import { formatEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import { partitionRequestOf } from '../link/partition.js';
import type { ProxyOptions } from '../proxy/types.js';
import { ClusterProxy } from './cluster-proxy.js';
import { clusterSettings } from './cluster-settings.js';
import { certificateError, clusterListenTls, discoveryTls } from './cluster-tls.js';
import { discoverCluster, type Discovery } from './discover.js';
import { ClientZones } from './client-zones.js';
import { ListenPortRange } from './listen-ports.js';
import { NodeSet } from './node-set.js';
import { idleRuleWarnings } from './node-link.js';
import { NodeStarter, type StartNodeProxy } from './node-starter.js';
import type { ClusterProxyOptions } from './options.js';
import { RewriteCounts } from './rewrite-counts.js';
import { rewriteStage } from './rewrite-stage.js';
import { settledFailure } from './settled-failure.js';
import { TopologyRefresh, type TopologyTarget } from './topology-refresh.js';

/**
 * Cluster mode's start-up, in order: the options checked, the seed asked for the topology (unless
 * the caller already did), one listener pair for TLS, the seed's listener, every node's listener,
 * the control endpoint, then the topology timer. A step that fails closes what the ones before it
 * opened.
 */
export async function startClusterProxy(
  options: ProxyOptions & ClusterProxyOptions,
  startNodeProxy: StartNodeProxy,
  known?: Discovery,
  secure = discoveryTls(options),
): Promise<ClusterProxy> {
  const log = options.log ?? ((line: string) => process.stderr.write(`redis-rtt: ${line}\n`));
  const s = clusterSettings(options, log);
  checkStartPartition(options);
  const found = known ?? (await discover(options, s.upstream, secure));
  if (!found.enabled) throw new ConfigError('--cluster', 'on', `auto or off: ${formatEndpoint({ kind: 'tcp', ...s.upstream })} is not a cluster node (INFO cluster says cluster_enabled:0)`);
  const seed = found.nodes.find((n) => n.myself);
  if (!seed) throw new ConfigError('--upstream', options.upstream, 'a cluster node whose CLUSTER NODES has a myself line');
  // One generated pair for every node's listener (the CA the start-up line prints), made last so a
  // failure above leaves nothing behind.
  const listenTls = clusterListenTls(options);
  const counts = new RewriteCounts(log);
  const starter = new NodeStarter({ options, startNodeProxy, listenHost: s.listen.host, announceHost: s.announceHost, listenTls: listenTls.listen, log });
  const auth = { user: options.upstreamUser, password: options.upstreamPassword };
  // One range for every set: a port one set gives back is not another's while others are free.
  const listenPorts = s.listenPorts && new ListenPortRange(s.listenPorts);
  // Each client zone's set rewrites to its own listeners: its stages look nodes up in it alone.
  const zoneSet = (zone: number): NodeSet => {
    const nodes: NodeSet = new NodeSet({
      announceHost: s.announceHost,
      listenPorts,
      zoneCount: s.zoneCount,
      zoneLinks: s.zoneLinks,
      clientZone: zone,
      nameClientZone: s.clientZoneCount !== undefined,
      // Its own copy: PUT /link remembers its rules per set.
      rules: [...s.rules],
      base: options.link ?? {},
      log,
      stageFor: (a) =>
        rewriteStage({
          selfHost: a.host,
          listenTls: listenTls.listen !== undefined,
          upstreamTls: secure !== undefined,
          directory: { listenerFor: (h, p) => nodes.listenerFor(h, p), open: (list) => zones.openNamed(zone, list).then(() => void refresh.refresh()) },
          onRewrite: (k) => counts.rewritten(k),
          onUnparsed: (k, why) => counts.unparsedReply(k, why),
          onOpenFailed: (list, err) => starter.openFailures.failed(list, err, s.clientZoneCount === undefined ? undefined : zone),
        }),
      startNodeProxy: (a, port, link, stage, namedZone) => starter.start(a, port, link, stage, namedZone),
    });
    return nodes;
  };
  const clientZoneCount = s.clientZoneCount ?? 1;
  const zones = new ClientZones(
    Array.from({ length: clientZoneCount }, (_, i) => ({ zone: i + 1, nodes: zoneSet(i + 1) })),
    s.clientZoneCount !== undefined,
  );
  // Each reading also tells which nodes without a listener are still in the cluster (/stats withoutListener).
  const readings: TopologyTarget = {
    list: () => zones.list(),
    setTopology: (nodes) => {
      starter.openFailures.reading(nodes);
      return zones.setTopology(nodes);
    },
  };
  const refresh = new TopologyRefresh({ seed, nodes: readings, auth, tls: secure, periodMs: s.topologyRefreshMs, log });
  const proxy = new ClusterProxy(zones, starter, refresh, counts, listenTls);
  try {
    // Zone 1's seed on --listen's port first, on its own: --listen may lie inside --listen-ports.
    const [first, ...others] = zones.zones;
    await first!.nodes.open([{ host: seed.host, port: seed.port }], s.listen.port);
    // Each other zone's seed before its other nodes (the first a set lists is its seed). Every
    // listener is tried even when one fails, so that a --listen-ports range too small names every
    // listener left without a port and how many they need: a failed seed stopped the start, and
    // the message counted one listener.
    // One after another: zone 2's seed takes the range's first port, zone 3's the next, whatever the timing (the
    // ports apps are given).
    const seeds: PromiseSettledResult<unknown>[] = [];
    for (const z of others) seeds.push(...(await Promise.allSettled([z.nodes.open([{ host: seed.host, port: seed.port }])])));
    const failed = settledFailure([...seeds, ...(await Promise.allSettled([zones.setTopology(found.nodes)]))]);
    if (failed) throw failed;
    for (const line of idleRuleWarnings(s.rules, zones.list())) log(line);
    startPartition(options, zones);
    await proxy.startControl(s.control, log);
  } catch (err) {
    await proxy.close();
    throw err;
  }
  refresh.start();
  return proxy;
}

/**
 * `link.partition` asked for at start cuts every node's link now, as the single-node start does
 * (cluster and Sentinel mode):
 * the nodes' proxies are given link settings only, which carry no partition. On each node's proxy,
 * not through the cluster's setLink, which would rename every node's link "PUT /link".
 */
export function startPartition(options: Pick<ProxyOptions, 'link'>, zones: ClientZones): void {
  const { partition, then } = options.link ?? {};
  if (partition === undefined) return;
  for (const n of zones.list()) n.proxy.setLink({ partition, ...(then !== undefined ? { then } : {}) });
}

/** Refuses a bad `link.partition` or `link.then` before anything starts, naming the key as the single-node start does. */
export function checkStartPartition(options: Pick<ProxyOptions, 'link'>): void {
  try {
    partitionRequestOf(options.link ?? {});
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`link.${err.flag}`, err.value, err.accepts);
    throw err;
  }
}

async function discover(
  options: ProxyOptions,
  upstream: { host: string; port: number },
  secure: ((host: string) => tls.ConnectionOptions) | undefined,
): Promise<Discovery> {
  const auth = { user: options.upstreamUser, password: options.upstreamPassword };
  try {
    return await discoverCluster(upstream.host, upstream.port, { ...auth, tls: secure?.(upstream.host) });
  } catch (err) {
    throw certificateError(options, err) ?? err;
  }
}
