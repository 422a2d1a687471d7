/** What cluster mode shows of itself: its handle's type, the nodes as /stats and the start-up line list them. */
import { formatEndpoint } from '../endpoint.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { RedisRttProxy } from '../proxy/types.js';
import type { Counters, StatsSnapshot } from '../stats/types.js';
import type { ClusterNode } from './node-set.js';
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
}

export interface ClusterStats extends StatsSnapshot {
  cluster: {
    nodes: (ClusterNodeView & { counters: Counters; connections: { active: number; total: number } })[];
    /** Replies rewritten, by kind. */
    rewrites: Record<RewriteKind, number>;
    /** Topology replies that could not be parsed and went out unchanged. */
    unparsedTopology: number;
  };
}

export interface RedisRttClusterProxy extends RedisRttProxy {
  readonly cluster: true;
  nodes(): ClusterNodeView[];
  /** Changes the link of the nodes `selector` picks (every node without one); returns the first one's settings. */
  setLink(update: LinkUpdate & { preset?: string }, selector?: string): LinkSettings;
  stats(): ClusterStats;
  /** Re-reads CLUSTER NODES now (the proxy also does it every topologyRefreshMs). */
  refreshTopology(): Promise<void>;
}

export function nodeView(n: ClusterNode): ClusterNodeView {
  return {
    id: n.id,
    upstream: `${n.host}:${n.port}`,
    listen: formatEndpoint({ kind: 'tcp', host: n.listen.host, port: n.listen.port }),
    role: n.role,
    zone: n.zone ?? null,
    link: n.linkName,
    linkSettings: n.proxy.link(),
  };
}
