/** What the topology rewriters need to know, and what they report. */

/** A listener of the proxy, as written into rewritten replies (the announce host, the bound port). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** A node's real address, as Redis wrote it. */
export interface RealAddress {
  readonly host: string;
  readonly port: number;
}

export interface RewriteContext {
  /** The real host of the node this connection goes to: what an empty endpoint (`MOVED 3999 :6381`) means. */
  readonly selfHost: string;
  /** The listener for a node's real address, or undefined while it has none. */
  listenerFor(host: string, port: number): ListenAddress | undefined;
  /**
   * The listeners serve TLS (`listenTls`): CLUSTER SHARDS then names them by `tls-port`, else by
   * `port`. The single port in SLOTS, NODES and redirects is the listener's either way.
   */
  readonly listenTls?: boolean;
  /**
   * The proxy speaks TLS to the nodes, so Redis names them by their TLS ports (SLOTS, NODES,
   * redirects), and the real port in CLUSTER SHARDS is `tls-port`.
   */
  readonly upstreamTls?: boolean;
}

/** Which reply a rewrite was in: /stats counts rewrites by these. */
export type RewriteKind = 'slots' | 'shards' | 'nodes' | 'replicas' | 'moved' | 'ask';
export const REWRITE_KINDS: readonly RewriteKind[] = ['slots', 'shards', 'nodes', 'replicas', 'moved', 'ask'];

export interface RewriteResult {
  /** The bytes to deliver: the input Buffer itself when nothing changed. */
  readonly bytes: Buffer;
  /** Replies rewritten, by kind (a reply counts once however many addresses it names). */
  readonly kinds: readonly RewriteKind[];
  /**
   * Real addresses that have no listener yet; `bytes` and `kinds` then cover the addresses that
   * have one. Open a listener for each and rewrite again; should one not open, `bytes` is the best
   * there is (its node keeps its real address, every other node still names its listener).
   */
  readonly missing: readonly RealAddress[];
  /** Set when a topology reply could not be parsed; `bytes` is then the input unchanged. */
  readonly unparsed?: { readonly kind: RewriteKind; readonly reason: string };
}
