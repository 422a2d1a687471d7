import { nodeKey } from '../cluster/topology.js';
import type { RealAddress } from '../cluster/types.js';

/**
 * Sentinel mode's zone placement with --zones N: the primary in zone 1, replica r (from 1, in the
 * order first seen, address order within one reading) in zone (r mod N) + 1, and sentinel s (from
 * 0, the given ones first, in order) in zone (s mod N) + 1. Placed once: a failover moves roles,
 * not zones.
 */
export class SentinelZones {
  private readonly placed = new Map<string, number>();
  private replicas = 0;
  private sentinels = 0;

  constructor(private readonly count: number | undefined) {}

  primary(a: RealAddress): number | undefined {
    return this.place(a, () => 1);
  }

  replica(a: RealAddress): number | undefined {
    return this.place(a, () => (++this.replicas % this.count!) + 1);
  }

  sentinel(a: RealAddress): number | undefined {
    return this.place(a, () => (this.sentinels++ % this.count!) + 1);
  }

  private place(a: RealAddress, next: () => number): number | undefined {
    if (this.count === undefined) return undefined;
    const key = nodeKey(a.host, a.port);
    let zone = this.placed.get(key);
    if (zone === undefined) this.placed.set(key, (zone = next()));
    return zone;
  }
}
