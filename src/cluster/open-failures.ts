import { nodeKey, type TopologyNode } from './topology.js';
import type { RealAddress } from './types.js';

/**
 * Says once that a node's listener could not be opened (no port left in --listen-ports), until it
 * opens: every reply that names such a node tries again, so a line per reply would repeat the same
 * thing for as long as the ports stay taken. Kept per listener: with --client-zones a node has one
 * per client zone, and one zone can have its listener while another has none (a port freed, then
 * taken by the first zone to ask). Kept per address, the first zone's listener took the node off
 * /stats withoutListener while the other zones' clients were still sent to it directly.
 */
export class OpenFailures {
  /** "ip:port" or "ip:port (client zone 2)" to the node's address ("ip:port", or "hostname:port" as a reply named it). */
  private readonly said = new Map<string, string>();

  constructor(private readonly log: (line: string) => void) {}

  /** `clientZone`: the set whose listeners failed, with --client-zones (named in the line). */
  failed(addresses: readonly RealAddress[], err: unknown, clientZone?: number): void {
    const fresh = addresses.map((a) => nodeKey(a.host, a.port)).filter((k) => !this.said.has(listenerKey(k, clientZone)));
    if (fresh.length === 0) return;
    for (const k of fresh) this.said.set(listenerKey(k, clientZone), k);
    const why = err instanceof Error ? err.message : String(err);
    const which = fresh.join(', ') + (clientZone === undefined ? '' : ` (client zone ${clientZone})`);
    this.log(`could not open a listener for ${which}: ${why}; replies name it by its real address until it has one`);
  }

  /** The nodes replies name by their real address now (`ip:port`, sorted, each once): /stats `cluster.withoutListener`. */
  nodes(): string[] {
    return [...new Set(this.said.values())].sort();
  }

  /** The node has a listener now (in `clientZone`'s set, with --client-zones): a later failure is news again. */
  opened(a: RealAddress, clientZone?: number): void {
    this.said.delete(listenerKey(nodeKey(a.host, a.port), clientZone));
  }

  /**
   * A topology reading (cluster mode's refresh): a node it names by neither address nor hostname has
   * left the cluster (del-node, CLUSTER FORGET), and no reply names it any more. It was listed for
   * good: a node with no listener is in no NodeSet, whose readings drop the nodes that left.
   */
  reading(nodes: readonly TopologyNode[]): void {
    const named = new Set(nodes.flatMap((n) => [nodeKey(n.host, n.port), ...(n.hostname === undefined ? [] : [nodeKey(n.hostname, n.port)])]));
    for (const [k, address] of this.said) if (!named.has(address)) this.said.delete(k);
  }
}

function listenerKey(address: string, clientZone: number | undefined): string {
  return clientZone === undefined ? address : `${address} (client zone ${clientZone})`;
}
