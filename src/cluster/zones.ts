import type { TopologyNode } from './topology.js';

/**
 * Zone placement, the way managed services spread shards: the primary of shard i (shards counted
 * from 0 in slot order) goes in zone (i mod N) + 1, its replica r (from 1, in address order) in
 * zone ((i + r) mod N) + 1. The client sits in zone 1. Nodes without slots come after the shards,
 * in address order. Zones are placed once and kept: a failover changes roles, not zones.
 */
export function placeZones(nodes: readonly TopologyNode[], zoneCount: number): Map<string, number> {
  const zones = new Map<string, number>();
  const byAddress = (a: TopologyNode, b: TopologyNode): number => a.host.localeCompare(b.host) || a.port - b.port;
  const masters = nodes
    .filter((n) => n.role === 'master')
    .sort((a, b) => (a.firstSlot ?? Infinity) - (b.firstSlot ?? Infinity) || byAddress(a, b));
  masters.forEach((m, i) => {
    zones.set(m.id, (i % zoneCount) + 1);
    nodes
      .filter((n) => n.role === 'replica' && n.masterId === m.id)
      .sort(byAddress)
      .forEach((r, j) => zones.set(r.id, ((i + j + 1) % zoneCount) + 1));
  });
  let next = masters.length;
  for (const n of [...nodes].sort(byAddress)) if (!zones.has(n.id)) zones.set(n.id, (next++ % zoneCount) + 1);
  return zones;
}
