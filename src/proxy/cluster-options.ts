import type { LinkSettings } from '../link/types.js';

/** Cluster mode's options on startProxy (the cluster folder implements them: docs/cluster.md). */
export interface ClusterProxyOptions {
  /**
   * auto: cluster mode when the upstream's INFO cluster says cluster_enabled:1; on: require it
   * (ConfigError otherwise); off: one listener, bytes untouched. @default 'off' in the library,
   * 'auto' in `redis-rtt proxy`
   */
  cluster?: 'auto' | 'on' | 'off';
  /** The host written into rewritten replies. @default the --listen host (127.0.0.1 for 0.0.0.0 / ::) */
  announceHost?: string;
  /** Ports for the listeners of the nodes other than the seed, "A-B". @default any free port */
  listenPorts?: string;
  /** Place the nodes in this many zones (see docs/cluster.md); the client is in zone 1. @default none */
  zones?: number;
  /** Link of the nodes in the client's zone. @default 'same-az' */
  sameZoneLink?: string;
  /** Link of the nodes in other zones. @default 'cross-az' */
  crossZoneLink?: string;
  /** "SELECTOR=LINK" overrides, later ones win. @default [] */
  nodeLinks?: string[];
  /** ACL user for the proxy's own discovery connections. @default none */
  upstreamUser?: string;
  /** Password for the proxy's own discovery connections (the CLI reads REDIS_RTT_UPSTREAM_PASSWORD). */
  upstreamPassword?: string;
  /** How often the proxy re-reads CLUSTER NODES to follow failovers and new nodes. @default 1000 */
  topologyRefreshMs?: number;
  /**
   * Told each node's link when its listener starts and after every change (zones, node links, PUT
   * /link), with the node's real address and its listener. Given, it replaces onLinkChange in
   * cluster mode (which otherwise hears every node's changes without saying which). For --record.
   */
  onNodeLinkChange?: (node: { upstream: string; listen: string }, link: LinkSettings) => void;
}
