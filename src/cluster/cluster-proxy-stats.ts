/** The cluster proxy's read side: every node's figures merged, per client zone too. Pure over the nodes' proxies. */
import { formatEndpoint } from '../endpoint.js';
import type { LinkSettings } from '../link/types.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { ConnectionInfo, StatsSnapshot } from '../stats/types.js';
import { mergeSnapshots } from './cluster-stats.js';
import { nodeView, type ClientZoneStats, type ClientZoneView, type ClusterStats } from './cluster-view.js';
import type { ClientZone, ClientZones } from './client-zones.js';
import type { ClusterNode } from './cluster-node.js';
import type { RewriteCounts } from './rewrite-counts.js';

/** The totals count the nodes that left the cluster too (NodeSet.goneStats); `cluster.nodes` only those it has. */
export function clusterStats(zones: ClientZones, counts: RewriteCounts, link: LinkSettings, withoutListener: string[]): ClusterStats {
  const per = zones.list().map((n) => ({ n, s: n.proxy.stats() }));
  const gone = zones.zones.flatMap((z) => z.nodes.goneStats());
  const merged = mergeSnapshots([...per.map((x) => x.s), ...gone], link);
  const nodes = per.map(({ n, s }) => ({ ...nodeView(n, zones.split), counters: s.totals, connections: s.connections, ...linkOverTime(s) }));
  const clientZones = zones.split ? zones.zones.map((z) => clientZoneStats(z, per)) : undefined;
  const cluster = { nodes, ...(clientZones ? { clientZones } : {}), ...counts.snapshot(), withoutListener };
  return { ...merged, ...processBlocks(per.map((x) => x.s)), cluster };
}

/**
 * `self`, `tap` and `countsOff` over the nodes it has: the nodes share one monitor (NodeStart.monitor),
 * so any node's `self` is the process's. The taps' counts add up; the bounds are the ones every node
 * keeps for its own connections. Every node runs with the tap or every node without it.
 */
function processBlocks(parts: readonly StatsSnapshot[]): Pick<StatsSnapshot, 'self' | 'tap' | 'countsOff'> {
  const self = parts.find((s) => s.self !== undefined)?.self;
  const taps = parts.flatMap((s) => (s.tap ? [s.tap] : []));
  const sum = (f: (t: (typeof taps)[number]) => number): number => taps.reduce((n, t) => n + f(t), 0);
  const tap =
    taps.length === 0
      ? undefined
      : {
          pendingRequests: sum((t) => t.pendingRequests),
          maxPendingPerConnection: taps[0]!.maxPendingPerConnection,
          maxPendingTotal: taps[0]!.maxPendingTotal,
          degradedConnections: sum((t) => t.degradedConnections),
        };
  const off = parts.some((s) => s.countsOff);
  return { ...(self ? { self } : {}), ...(tap ? { tap } : {}), ...(off ? { countsOff: true as const } : {}) };
}

/** A node's own loss counts, partition and moving link: each node runs them on its own proxy, so they are not merged. */
function linkOverTime(s: StatsSnapshot): Pick<StatsSnapshot, 'loss' | 'partition' | 'timeline'> {
  return { ...(s.loss ? { loss: s.loss } : {}), ...(s.partition ? { partition: s.partition } : {}), ...(s.timeline ? { timeline: s.timeline } : {}) };
}

export function mergedCommandLatency(nodes: readonly ClusterNode[]): Map<string, LatencyHistogram> {
  const merged = new Map<string, LatencyHistogram>();
  for (const n of nodes) {
    for (const [name, h] of n.proxy.commandLatencyUs()) {
      let into = merged.get(name);
      if (into === undefined) merged.set(name, (into = new LatencyHistogram()));
      into.add(h);
    }
  }
  return merged;
}

export function clusterConnections(zones: ClientZones): ConnectionInfo[] {
  const split = zones.split;
  return zones.list().flatMap((n) => n.proxy.connections().map((c) => ({ ...c, node: `${n.host}:${n.port}`, ...(split ? { clientZone: n.clientZone } : {}) })));
}

export function clientZoneViews(zones: ClientZones): ClientZoneView[] | undefined {
  if (!zones.split) return undefined;
  return zones.zones.map((z) => ({
    zone: z.zone,
    seed: listenOf(z.nodes.list()[0]!),
    nodes: z.nodes.list().map((n) => {
      const { id, upstream, listen, role, zone, link } = nodeView(n);
      return { id, upstream, listen, role, zone, link };
    }),
  }));
}

function listenOf(n: ClusterNode): string {
  return formatEndpoint({ kind: 'tcp', host: n.listen.host, port: n.listen.port });
}

/** One client zone's share: its listeners' snapshots merged. */
function clientZoneStats(z: ClientZone, per: readonly { n: ClusterNode; s: StatsSnapshot }[]): ClientZoneStats {
  const own = per.filter((x) => x.n.clientZone === z.zone);
  const { totals, commands, connections } = mergeSnapshots([...own.map((x) => x.s), ...z.nodes.goneStats()], own[0]!.s.link);
  return { zone: z.zone, seed: listenOf(z.nodes.list()[0]!), totals, commands, connections };
}
