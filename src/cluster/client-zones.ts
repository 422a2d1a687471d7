import type { LinkUpdate } from '../link/types.js';
import type { CloseOptions } from '../proxy/types.js';
import type { ClusterNode, NodeLabel } from './cluster-node.js';
import type { NodeSet } from './node-set.js';
import { settledFailure } from './settled-failure.js';
import type { TopologyNode } from './topology.js';
import type { RealAddress } from './types.js';

/** The listeners of one client zone: its own node set, whose rewrites name only its own listeners. */
export interface ClientZone {
  /** 1-based; 1 without --client-zones. */
  readonly zone: number;
  readonly nodes: NodeSet;
}

/**
 * One set of listeners per client zone over the same real nodes (`--client-zones N`; one set
 * without it). Each set has its own rewrite stages, so a client that connects to zone k's seed
 * only ever learns zone k's listeners; each set picks every node's link by whether the node sits
 * in its zone. What the proxy does to all listeners (topology, links, stages, close) goes through
 * here; the first set's first node is the seed clients without a zone use.
 */
export class ClientZones {
  /**
   * @param split true with --client-zones (even 1): views, /stats and /connections then name each
   * listener's client zone.
   */
  constructor(
    readonly zones: readonly ClientZone[],
    readonly split = false,
  ) {
    if (zones.length === 0) throw new Error('ClientZones needs at least one zone');
  }

  /** Every listener, zone by zone (zone 1's seed first). */
  list(): ClusterNode[] {
    return this.zones.flatMap((z) => z.nodes.list());
  }

  /** A fresh topology reading for every zone's set (each opens its own listeners for new nodes). */
  async setTopology(nodes: readonly TopologyNode[]): Promise<void> {
    // Every zone takes the reading even when one zone's set fails to open a listener.
    const failed = settledFailure(await Promise.allSettled(this.zones.map((z) => z.nodes.setTopology(nodes))));
    if (failed) throw failed;
  }

  /**
   * Opens a listener for each address in every zone's set (zone 1's on `listenPort` when given, the
   * others' on any free port or from --listen-ports); resolves once all accept clients. Every zone's
   * opens are waited for and their failures are one error, which names and counts every listener left
   * without a port (sentinel mode's replies open through here): the first zone's failure alone counted its own.
   */
  async open(addresses: readonly RealAddress[], listenPort?: number): Promise<void> {
    const failed = settledFailure(await Promise.allSettled(this.zones.map((z) => z.nodes.open(addresses, z.zone === 1 ? listenPort : undefined))));
    if (failed) throw failed;
  }

  /**
   * A reply on `zone`'s listeners named nodes it has none for: opened in its set. When that fails (no
   * port left in --listen-ports), every other set tries too, as the next reading does, so the error
   * names and counts every listener those nodes lack ("the nodes need N"), as the reading's does: it
   * counted this zone's alone, 21 where 23 were needed.
   */
  async openNamed(zone: number, addresses: readonly RealAddress[]): Promise<void> {
    const own = this.zones.find((z) => z.zone === zone) ?? this.zones[0]!;
    const first = await Promise.allSettled([own.nodes.open(addresses)]);
    if (first[0]!.status === 'fulfilled') return;
    const others = await Promise.allSettled(this.zones.filter((z) => z !== own).map((z) => z.nodes.open(addresses)));
    throw settledFailure([...first, ...others]);
  }

  /** Ids, roles and zones from a reading other than CLUSTER NODES (sentinel mode's), for every zone's set. */
  label(labels: readonly NodeLabel[]): void {
    for (const z of this.zones) z.nodes.label(labels);
  }

  /** PUT /link?node=SELECTOR on the selected nodes of every zone's set. */
  setLink(update: LinkUpdate & { preset?: string }, selector: string | undefined): ClusterNode[] {
    return this.zones.flatMap((z) => z.nodes.setLink(update, selector));
  }

  async close(options?: CloseOptions): Promise<void> {
    await Promise.all(this.zones.map((z) => z.nodes.close(options)));
  }
}
