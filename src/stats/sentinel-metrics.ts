import { nodeBlocks } from './node-blocks.js';
import type { MetricFamily, MetricSample } from './prometheus.js';
import type { StatsSnapshot } from './types.js';

/** The roles a Sentinel-mode listener's upstream can have: each node has one series per role, 1 for its own. */
const ROLES = ['master', 'replica', 'sentinel', 'unknown'] as const;

/**
 * The `sentinel` block of /stats as Prometheus families (none outside Sentinel mode): the primary as an
 * info-style gauge, each sentinel's answer, disagreements, failovers seen, rewrites, and each node's role
 * as a state set (a series per role, so a role that changes moves a 1 between series, none vanishes).
 */
export function sentinelFamilies(s: StatsSnapshot): MetricFamily[] {
  const b = s.sentinel;
  if (b === undefined) return [];
  const master = { master: b.master };
  // One role per node: with --client-zones a node has an entry per client zone, all of one role.
  const roles = new Map<string, string>();
  for (const n of nodeBlocks(s) ?? []) if (n.upstream !== undefined && n.role !== undefined) roles.set(n.upstream, n.role);
  const roleSamples: MetricSample[] = [...roles].flatMap(([node, role]) => ROLES.map((r) => ({ labels: { node, role: r }, value: role === r ? 1 : 0 })));
  return [
    {
      name: 'redis_rtt_sentinel_primary_info',
      help: "The primary the proxy's last reading of the sentinels named (node: its real address); no series while none is named.",
      type: 'gauge',
      samples: b.primary === null ? [] : [{ labels: { ...master, node: b.primary }, value: 1 }],
    },
    {
      name: 'redis_rtt_sentinel_answer_info',
      help: 'The primary each sentinel last named, from the proxy readings and the replies clients got (a series per sentinel).',
      type: 'gauge',
      samples: b.answers.map((a) => ({ labels: { ...master, sentinel: a.sentinel, primary: a.primary }, value: 1 })),
    },
    {
      name: 'redis_rtt_sentinel_disagree',
      help: "1 while the sentinels' latest answers name more than one primary, else 0.",
      type: 'gauge',
      samples: [{ labels: master, value: b.disagree ? 1 : 0 }],
    },
    {
      name: 'redis_rtt_sentinel_disagreements_total',
      help: 'New sets of sentinel answers naming more than one primary (each logged), since start or the last reset.',
      type: 'counter',
      samples: [{ labels: master, value: b.disagreements }],
    },
    {
      name: 'redis_rtt_sentinel_failovers_total',
      help: "Times the proxy's reading named another primary than the one before (a failover seen), since start or the last reset.",
      type: 'counter',
      samples: [{ labels: master, value: b.failovers }],
    },
    {
      name: 'redis_rtt_sentinel_rewrites_total',
      help: 'SENTINEL replies and events whose addresses were rewritten to listeners, by kind.',
      type: 'counter',
      samples: Object.entries(b.rewrites).map(([kind, value]) => ({ labels: { kind }, value })),
    },
    {
      name: 'redis_rtt_sentinel_unparsed_replies_total',
      help: 'SENTINEL replies of a shape the rewriter does not know, passed unchanged.',
      type: 'counter',
      samples: [{ value: b.unparsed }],
    },
    {
      name: 'redis_rtt_sentinel_node_role',
      help: 'Each node and sentinel behind a listener (node: its real address), a series per role: 1 for the role it has now, else 0.',
      type: 'gauge',
      samples: roleSamples,
    },
  ];
}
