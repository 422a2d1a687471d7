/** What cluster mode shows of itself: its handle's type, the nodes as /stats and the start-up line list them. */
import { formatEndpoint } from '../endpoint.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { RedisRttProxy } from '../proxy/types.js';
import type { Counters, StatsSnapshot } from '../stats/types.js';
import type { ClusterNode } from './cluster-node.js';
import type { ListenerRole } from './topology.js';
import type { RewriteKind } from './types.js';

/** A node as the start-up line, /stats and nodes() show it. */
export interface ClusterNodeView {
  id: string;
  /** The node's real "host:port". */
  upstream: string;
  /** Its listener, as rewritten replies name it. */
  listen: string;
  role: ListenerRole;
  /** 1-based zone with --zones; null without. */
  zone: number | null;
  /** The link's name: a preset, a spec, "link" (the --rtt/--preset flags) or "PUT /link". */
  link: string;
  linkSettings: LinkSettings;
  /** With --client-zones: the client zone this listener serves. */
  clientZone?: number;
}

/** One client zone's listeners, as the start-up line shows them (--client-zones). */
export interface ClientZoneView {
  zone: number;
  /** The listener apps in this zone connect to first (zone 1's is the --listen one). */
  seed: string;
  nodes: Pick<ClusterNodeView, 'id' | 'upstream' | 'listen' | 'role' | 'zone' | 'link'>[];
}

/** What one client zone's clients sent and got, over its listeners (/stats with --client-zones). */
export interface ClientZoneStats extends Pick<StatsSnapshot, 'totals' | 'commands' | 'connections'> {
  zone: number;
  seed: string;
}

export interface ClusterStats extends StatsSnapshot {
  cluster: {
    /**
     * Per node also its `loss`, `partition` and `timeline` when it has them (StatsSnapshot's, of that node's proxy);
     * `connections.refused` with --max-connections, which each listener applies to its own clients.
     */
    nodes: (ClusterNodeView & { counters: Counters; connections: StatsSnapshot['connections'] } & Pick<StatsSnapshot, 'loss' | 'partition' | 'timeline'>)[];
    /** Replies rewritten, by kind. */
    rewrites: Record<RewriteKind, number>;
    /** With --client-zones: the same traffic split by the client zone whose listeners carried it. */
    clientZones?: ClientZoneStats[];
    /** Topology replies that could not be parsed and went out unchanged. */
    unparsedTopology: number;
    /** Nodes (`ip:port`) a reply named by their real address, having no listener (no port left in --listen-ports): clients reach them directly. */
    withoutListener: string[];
  };
}

export interface RedisRttClusterProxy extends RedisRttProxy {
  readonly cluster: true;
  /** The seed listener's host: always TCP in cluster and sentinel modes. */
  readonly host: string;
  readonly port: number;
  nodes(): ClusterNodeView[];
  /** Changes the link of the nodes `selector` picks (every node without one); returns the first one's settings. */
  setLink(update: LinkUpdate & { preset?: string }, selector?: string): LinkSettings;
  stats(): ClusterStats;
  /** One entry per client zone with --client-zones, else undefined. */
  clientZones(): ClientZoneView[] | undefined;
  /** Re-reads CLUSTER NODES now (the proxy also does it every topologyRefreshMs). */
  refreshTopology(): Promise<void>;
}

/** `split`: name the listener's client zone (--client-zones). */
export function nodeView(n: ClusterNode, split = false): ClusterNodeView {
  return {
    id: n.id,
    upstream: `${n.host}:${n.port}`,
    listen: formatEndpoint({ kind: 'tcp', host: n.listen.host, port: n.listen.port }),
    role: n.role,
    zone: n.zone ?? null,
    link: n.linkName,
    linkSettings: n.proxy.link(),
    ...(split ? { clientZone: n.clientZone } : {}),
  };
}
