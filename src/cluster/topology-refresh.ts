import type tls from 'node:tls';
import { discoverCluster } from './discover.js';
import type { TopologyNode } from './topology.js';
import { PeriodicRefresh } from './periodic-refresh.js';
import type { RealAddress } from './types.js';

export type { TopologySource } from './periodic-refresh.js';

/** What a refresh reads from (the nodes to ask) and feeds (ClientZones, a NodeSet). */
export interface TopologyTarget {
  list(): readonly RealAddress[];
  setTopology(nodes: readonly TopologyNode[]): Promise<void>;
}

export interface TopologyRefreshOptions {
  /** The node given as --upstream: asked first, even once it is no longer among the nodes. */
  seed: RealAddress;
  nodes: TopologyTarget;
  auth: { user?: string; password?: string };
  /** TLS options per node host (--upstream-tls); undefined without TLS. */
  tls: ((host: string) => tls.ConnectionOptions) | undefined;
  periodMs: number;
  log(line: string): void;
}

/**
 * Re-reads CLUSTER NODES from the first node that answers with a node that serves slots, every
 * `periodMs` and when a rewrite opened a listener. One read at a time: a refresh asked for while
 * one runs joins it. A node taken out of the cluster (del-node resets it) knows only itself and no
 * slots: its reading would make every other node look gone, so the next node is asked; only when
 * no node's reading has slots (a cluster not set up yet) is the first answer taken.
 */
export class TopologyRefresh extends PeriodicRefresh {
  constructor(private readonly o: TopologyRefreshOptions) {
    super(o.periodMs, 'topology', o.log);
  }

  protected async read(): Promise<void> {
    let first: readonly TopologyNode[] | undefined;
    for (const c of [this.o.seed, ...this.o.nodes.list()]) {
      try {
        const d = await discoverCluster(c.host, c.port, { ...this.o.auth, tls: this.o.tls?.(c.host), timeoutMs: 1000 });
        if (!d.enabled || d.nodes.length === 0) continue;
        if (d.nodes.some((n) => n.firstSlot !== undefined)) return this.o.nodes.setTopology(d.nodes);
        first ??= d.nodes;
      } catch {
        // that node is down: ask the next
      }
    }
    if (first) return this.o.nodes.setTopology(first);
    throw new Error('no node answered CLUSTER NODES');
  }
}
