import { nodeKey, type TopologyNode } from './topology.js';
import type { RealAddress } from './types.js';

/**
 * Says once that a node could not get a listener (no port left in --listen-ports), until it gets
 * one: every reply that names such a node tries again, so a line per reply would repeat the same
 * thing for as long as the ports stay taken.
 */
export class OpenFailures {
  private readonly said = new Set<string>();

  constructor(private readonly log: (line: string) => void) {}

  failed(addresses: readonly RealAddress[], err: unknown): void {
    const fresh = addresses.map((a) => nodeKey(a.host, a.port)).filter((k) => !this.said.has(k));
    if (fresh.length === 0) return;
    for (const k of fresh) this.said.add(k);
    const why = err instanceof Error ? err.message : String(err);
    this.log(`could not open a listener for ${fresh.join(', ')}: ${why}; replies name it by its real address until it has one`);
  }

  /** The nodes replies name by their real address now (`ip:port`, sorted): /stats `cluster.withoutListener`. */
  nodes(): string[] {
    return [...this.said].sort();
  }

  /** The node has a listener now: a later failure is news again. */
  opened(a: RealAddress): void {
    this.said.delete(nodeKey(a.host, a.port));
  }

  /**
   * A topology reading (cluster mode's refresh): a node it names by neither address nor hostname has
   * left the cluster (del-node, CLUSTER FORGET), and no reply names it any more. It was listed for
   * good: a node with no listener is in no NodeSet, whose readings drop the nodes that left.
   */
  reading(nodes: readonly TopologyNode[]): void {
    const named = new Set(nodes.flatMap((n) => [nodeKey(n.host, n.port), ...(n.hostname === undefined ? [] : [nodeKey(n.hostname, n.port)])]));
    for (const k of this.said) if (!named.has(k)) this.said.delete(k);
  }
}
