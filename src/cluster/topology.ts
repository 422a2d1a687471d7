/**
 * A cluster's nodes as CLUSTER NODES describes them: the proxy discovers the cluster with it and
 * re-reads it to follow failovers and new nodes.
 */
export type NodeRole = 'master' | 'replica';

/** What a listener's upstream is: a data node's role, a Sentinel (sentinel mode), or not known yet. */
export type ListenerRole = NodeRole | 'sentinel' | 'unknown';

export interface TopologyNode {
  readonly id: string;
  readonly host: string;
  readonly port: number;
  /**
   * The name it announces (`cluster-announce-hostname`), if any: with `cluster-preferred-endpoint-type
   * hostname` Redis names the node by it in -MOVED and -ASK.
   */
  readonly hostname: string | undefined;
  readonly role: NodeRole;
  /** The primary's id, for a replica. */
  readonly masterId: string | undefined;
  /** Lowest slot served, for a primary with slots (shards are counted in this order). */
  readonly firstSlot: number | undefined;
  /** The node that answered (the `myself` flag). */
  readonly myself: boolean;
  /** Flagged fail / noaddr / handshake: not a node to open a listener for. */
  readonly unusable: boolean;
}

/**
 * Parses CLUSTER NODES text. An empty host (a node that does not know its own address yet) is
 * `fallbackHost`, the host the text was read from.
 */
export function parseClusterNodes(text: string, fallbackHost: string): TopologyNode[] {
  const out: TopologyNode[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(' ');
    if (f.length < 8) continue;
    // ip:port@cport[,hostname[,aux=value...]] (Redis 7 and 7.2)
    const [endpoint = '', hostname = ''] = f[1]!.split(',');
    const addr = endpoint.split('@')[0]!;
    const colon = addr.lastIndexOf(':');
    const port = Number(addr.slice(colon + 1));
    const flags = f[2]!.split(',');
    const slots = f.slice(8).filter((s) => /^\d/.test(s)).map((s) => Number(s.split('-')[0]));
    out.push({
      id: f[0]!,
      host: addr.slice(0, colon) || fallbackHost,
      port,
      hostname: hostname === '' || hostname.includes('=') ? undefined : hostname,
      role: flags.includes('master') ? 'master' : 'replica',
      masterId: f[3] === '-' ? undefined : f[3],
      firstSlot: slots.length > 0 ? Math.min(...slots) : undefined,
      myself: flags.includes('myself'),
      unusable: port === 0 || flags.some((x) => x === 'noaddr' || x === 'handshake' || x === 'fail'),
    });
  }
  return out;
}

/** "host:port", the key a node is known by. */
export function nodeKey(host: string, port: number): string {
  return `${host}:${port}`;
}
