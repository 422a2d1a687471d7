import type { MetricFamily, MetricSample } from './prometheus.js';
import { nodeBlocks, type NodeBlock } from './node-blocks.js';
import type { StatsSnapshot } from './types.js';

const US_PER_SECOND = 1e6;

type Labels = Record<string, string>;

/**
 * Each node's own counts and link in cluster and Sentinel modes (/stats `cluster.nodes`), labelled
 * `node` (its real address), and `client_zone` with --client-zones; none with one node. Families of their own, not a `node` label on the
 * totals' families: the totals keep the counts of nodes that left, so a sum over the nodes' series
 * would not be them. The top-level link gauges are the seed's link; these are every node's.
 */
export function nodeFamilies(s: StatsSnapshot): MetricFamily[] {
  // One series per label set: with --client-zones a node has an entry per client zone, told apart by
  // client_zone; two entries alike would be a duplicate series, which Prometheus refuses.
  const seen = new Set<string>();
  const nodes = (nodeBlocks(s) ?? []).flatMap((n) => {
    if (n.upstream === undefined) return [];
    const labels: Labels = { node: n.upstream, ...(n.clientZone === undefined ? {} : { client_zone: String(n.clientZone) }) };
    const key = JSON.stringify(labels);
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ n, labels }];
  });
  if (nodes.length === 0) return [];
  const family = (name: string, help: string, type: 'counter' | 'gauge', samples: (n: NodeBlock, labels: Labels) => MetricSample[]): MetricFamily => ({
    name: `redis_rtt_node_${name}`,
    help,
    type,
    samples: nodes.flatMap(({ n, labels }) => samples(n, labels)),
  });
  const one = (value: (n: NodeBlock) => number) => (n: NodeBlock, labels: Labels): MetricSample[] => [{ labels, value: value(n) }];
  const link = (value: (n: NodeBlock) => number | undefined) => (n: NodeBlock, labels: Labels): MetricSample[] => {
    const v = value(n);
    return v === undefined ? [] : [{ labels, value: v / US_PER_SECOND }];
  };
  // Without the tap (--no-tap) a node's counters are zeros nobody measured: left out, as the totals' are.
  const counted = s.countsOff
    ? []
    : [
        family('commands_total', 'Requests seen from clients, by node.', 'counter', one((n) => n.counters.commands)),
        family('replies_total', 'Reply frames matched to a request, by node.', 'counter', one((n) => n.counters.replies)),
        family('error_replies_total', 'Error replies, by node.', 'counter', one((n) => n.counters.errorReplies)),
        family('round_trips_total', 'Round trips, by node.', 'counter', one((n) => n.counters.roundTrips)),
        family('bytes_total', 'Bytes forwarded, by node and direction (up: client to Redis, down: Redis to client).', 'counter', (n, labels) => [
          { labels: { ...labels, direction: 'up' }, value: n.counters.bytesUp },
          { labels: { ...labels, direction: 'down' }, value: n.counters.bytesDown },
        ]),
      ];
  return [
    ...counted,
    family('connections_active', 'Client connections open now, by node.', 'gauge', one((n) => n.connections.active)),
    family('connections_total', 'Client connections accepted since start or the last reset, by node.', 'counter', one((n) => n.connections.total)),
    // With --max-connections only, as the totals' redis_rtt_connections_refused_total: each listener caps its own clients.
    ...(nodes.some(({ n }) => n.connections.refused !== undefined)
      ? [family('connections_refused_total', 'Clients closed at once at --max-connections since start or the last reset, by node.', 'counter', one((n) => n.connections.refused ?? 0))]
      : []),
    family('link_up_delay_seconds', "One-way delay client to Redis of the node's link, seconds.", 'gauge', link((n) => n.linkSettings?.upUs)),
    family('link_down_delay_seconds', "One-way delay Redis to client of the node's link, seconds.", 'gauge', link((n) => n.linkSettings?.downUs)),
  ];
}
