/** The node set's contract: one node behind its listener, what a reading says of it, and the set's options. */
import type { LinkSpec } from '../link/link-spec.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { RedisRttProxy } from '../proxy/types.js';
import type { StageFactory } from '../stage/types.js';
import type { ListenPortRange } from './listen-ports.js';
import type { NodeLinkRule, SelectableNode } from './node-link.js';
import type { ListenerRole } from './topology.js';
import type { ListenAddress, RealAddress } from './types.js';

/** One node behind its own listener, delay lines and tap. */
export interface ClusterNode extends SelectableNode {
  readonly host: string;
  readonly port: number;
  id: string;
  role: ListenerRole;
  zone: number | undefined;
  /** The client zone whose listener this is (1 without client zones). */
  readonly clientZone: number;
  /** What rewritten replies say about this node. */
  readonly listen: ListenAddress;
  readonly proxy: RedisRttProxy;
  /** The rule or zone link this node runs ("cross-az", "rtt=2ms", "PUT /link"). */
  linkName: string;
}

/** What a reading says of one known node; `zone` is taken only the first time a node gets one. */
export interface NodeLabel extends RealAddress {
  readonly id: string;
  readonly role: ListenerRole;
  readonly zone: number | undefined;
}

export interface NodeSetOptions {
  /**
   * Starts the proxy for one node (its own listener, link and tap) on `port` (0 = any);
   * `namedZone`: the set's client zone when log lines name it (listenerName).
   */
  startNodeProxy(upstream: RealAddress, port: number, link: LinkSettings, stage: StageFactory | undefined, namedZone?: number): Promise<RedisRttProxy>;
  /** The rewrite stage for a node's connections; undefined: its bytes need none (they stay on the fast path). */
  stageFor(upstream: RealAddress): StageFactory | undefined;
  announceHost: string;
  /** --listen-ports, the one range every client zone's set takes from; undefined: any free port. */
  listenPorts?: ListenPortRange;
  zoneCount?: number;
  zoneLinks?: { same: LinkSpec; cross: LinkSpec };
  /** The zone of the clients these listeners serve: a node in it gets the same-zone link. @default 1 */
  clientZone?: number;
  /**
   * With --client-zones: log lines and errors name this set's client zone (listenerName), as every
   * node has a listener in each zone.
   */
  nameClientZone?: boolean;
  base: LinkUpdate & { preset?: string };
  rules: NodeLinkRule[];
  /**
   * How long readings must leave a node out before its listener closes: a node added a moment ago
   * may be missing from the reading of a node gossip has not told yet. @default 5000
   */
  goneAfterMs?: number;
  log(line: string): void;
}

/**
 * How log lines and errors name a node's listener: "node 127.0.0.1:7001", and with --client-zones
 * "node 127.0.0.1:7001 (client zone 2)". A node has a listener per client zone: without the zone,
 * its lines read the same for each, and a --listen-ports error counted the node's listeners as one.
 */
export function listenerName(a: RealAddress, clientZone: number | undefined): string {
  return `node ${a.host}:${a.port}${clientZone === undefined ? '' : ` (client zone ${clientZone})`}`;
}
