/**
 * The nodes of a multi-node proxy's stats (/stats `cluster.nodes`, which Sentinel mode has too): the
 * first top-level block with a `nodes` list whose entries have counters. Read by shape, not by
 * type, so the dashboard and /metrics need nothing of src/cluster.
 */
import type { LinkSettings } from '../link/types.js';
import type { Counters } from './types.js';

/** A node as its stats block has it: what it counted; its other fields are shown as they are. */
export interface NodeBlock {
  counters: Counters;
  /** `refused`: clients its listener closed at once at --max-connections (present only with the cap). */
  connections: { active: number; total: number; refused?: number };
  /** Where its clients connect, "host:port": one per entry (cluster and Sentinel modes have it). */
  listen?: string;
  /** Its real address, "host:port" (cluster and Sentinel modes have it). */
  upstream?: string;
  /** What its upstream is (cluster and Sentinel modes have it): master, replica, sentinel or unknown. */
  role?: string;
  /** With --client-zones: the client zone whose listener this entry is (a node has one per zone). */
  clientZone?: number;
  /** Its own link (cluster and Sentinel modes have it). */
  linkSettings?: LinkSettings;
}

export function nodeBlocks(stats: object): NodeBlock[] | undefined {
  for (const block of Object.values(stats)) {
    const nodes: unknown = typeof block === 'object' && block !== null ? (block as { nodes?: unknown }).nodes : undefined;
    if (Array.isArray(nodes) && nodes.length > 0 && nodes.every(isNodeBlock)) return nodes;
  }
  return undefined;
}

function isNodeBlock(n: unknown): n is NodeBlock {
  return typeof n === 'object' && n !== null && typeof (n as NodeBlock).counters === 'object' && typeof (n as NodeBlock).connections === 'object';
}
