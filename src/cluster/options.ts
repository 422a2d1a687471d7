import { ConfigError } from '../errors.js';

/** What cluster mode adds to ProxyOptions. */
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
}

export const DEFAULT_CLUSTER = {
  sameZoneLink: 'same-az',
  crossZoneLink: 'cross-az',
  topologyRefreshMs: 1000,
} as const;

/** Parses "A-B" into an inclusive port range. */
export function parsePortRange(text: string, flag = '--listen-ports'): { from: number; to: number } {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const from = Number(m?.[1]);
  const to = Number(m?.[2]);
  if (!m || from < 1 || to > 65535 || from > to) throw new ConfigError(flag, text, 'a port range A-B with 1 <= A <= B <= 65535');
  return { from, to };
}

export function parseClusterMode(text: string | undefined, flag = '--cluster'): 'auto' | 'on' | 'off' {
  if (text === undefined) return 'off';
  if (text === 'auto' || text === 'on' || text === 'off') return text;
  throw new ConfigError(flag, text, 'auto | on | off');
}

export function checkZones(zones: number | undefined, flag = '--zones'): number | undefined {
  if (zones === undefined) return undefined;
  if (!Number.isInteger(zones) || zones < 1 || zones > 16) throw new ConfigError(flag, zones, 'a whole number of zones from 1 to 16');
  return zones;
}
