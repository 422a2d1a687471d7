import type tls from 'node:tls';
import { discoverCluster } from './discover.js';
import { nodeKey, type ListenerRole, type TopologyNode } from './topology.js';
import { PeriodicRefresh } from './periodic-refresh.js';
import type { RealAddress } from './types.js';

export type { TopologySource } from './periodic-refresh.js';

/** What a refresh reads from (the nodes to ask) and feeds (ClientZones, a NodeSet). */
export interface TopologyTarget {
  /** The nodes with listeners; `unknown` for one a reply named that no reading has had yet. */
  list(): readonly (RealAddress & { readonly role: ListenerRole })[];
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
 * no node's reading has slots (a cluster not set up yet) is the first answer taken. While a node a
 * reply named (an ASK to a node added a moment ago) is in no reading yet, the next nodes are asked
 * for one that has it: the seed hears of a new node by gossip, up to a second later, and until a
 * reading has the node it runs on the base link, with no zone and no role rule.
 */
export class TopologyRefresh extends PeriodicRefresh {
  constructor(private readonly o: TopologyRefreshOptions) {
    super(o.periodMs, 'topology', o.log);
  }

  protected async read(): Promise<void> {
    const listed = this.o.nodes.list();
    const unread = listed.filter((n) => n.role === 'unknown').map((n) => nodeKey(n.host, n.port));
    // Every client zone lists each node: ask each once.
    const asks = new Map([this.o.seed, ...listed].map((c) => [nodeKey(c.host, c.port), c]));
    let first: readonly TopologyNode[] | undefined;
    let withSlots: readonly TopologyNode[] | undefined;
    for (const c of asks.values()) {
      try {
        const d = await discoverCluster(c.host, c.port, { ...this.o.auth, tls: this.o.tls?.(c.host), timeoutMs: 1000 });
        if (!d.enabled || d.nodes.length === 0) continue;
        if (!d.nodes.some((n) => n.firstSlot !== undefined)) {
          first ??= d.nodes;
          continue;
        }
        if (unread.every((key) => names(d.nodes, key))) return this.o.nodes.setTopology(d.nodes);
        withSlots ??= d.nodes;
      } catch {
        // that node is down: ask the next
      }
    }
    const best = withSlots ?? first;
    if (best) return this.o.nodes.setTopology(best);
    throw new Error('no node answered CLUSTER NODES');
  }
}

/** Whether a reading names the node known as `key`: by its address, or by the hostname it announces. */
function names(nodes: readonly TopologyNode[], key: string): boolean {
  return nodes.some((n) => nodeKey(n.host, n.port) === key || (n.hostname !== undefined && nodeKey(n.hostname, n.port) === key));
}
