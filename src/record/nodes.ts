/**
 * Cluster traces: the session split by node (each connection's open line names its node), and the
 * MOVED / ASK redirects its replies carried. Pure: timelines in, figures out.
 *
 * A redirect costs the client one more round trip: the command went to a node that does not serve its
 * slot, and the client sends it again to the node the reply named (after MOVED it usually also re-reads
 * the slot map). Counted on any trace: a single-node proxy in front of one cluster node sees them too.
 */
import { ms } from './opportunities.js';
import { roundTripWaitUs, type ConnectionTimeline } from './timeline.js';

export interface Redirects {
  moved: number;
  ask: number;
}

export interface NodeSummary {
  /** The real node, host:port. */
  node: string;
  /** Its listener, as the open lines named it. */
  listen?: string;
  /** The link RTTs its round trips paid, distinct, ascending (one unless its link changed). */
  linkRttsUs: number[];
  connections: number;
  commands: number;
  roundTrips: number;
  /** Share of the session's round trips, percent (0.1). */
  roundTripSharePct: number;
  waitMs: number;
  redirects: Redirects;
}

/** One row per node, in the order nodes first appear; empty for a trace without node fields. */
export function summarizeNodes(timelines: readonly ConnectionTimeline[]): NodeSummary[] {
  const byNode = new Map<string, NodeSummary & { rtts: Set<number>; waitUs: number }>();
  let totalRoundTrips = 0;
  for (const t of timelines) {
    totalRoundTrips += t.roundTrips.length;
    if (t.node === undefined) continue;
    let n = byNode.get(t.node);
    if (!n) {
      n = {
        node: t.node, linkRttsUs: [], connections: 0, commands: 0, roundTrips: 0, roundTripSharePct: 0, waitMs: 0,
        redirects: { moved: 0, ask: 0 }, rtts: new Set(), waitUs: 0,
      };
      if (t.listen !== undefined) n.listen = t.listen;
      byNode.set(t.node, n);
    }
    n.connections++;
    n.roundTrips += t.roundTrips.length;
    n.commands += t.noRoundTrip.length;
    for (const rt of t.roundTrips) {
      n.commands += rt.commands.length;
      // As the connections table counts it: the handshake hold in the first round trip is set-up.
      n.waitUs += roundTripWaitUs(t, rt);
      n.rtts.add(rt.linkRttUs);
    }
    if (t.roundTrips.length === 0) n.rtts.add(t.openLinkRttUs);
    addRedirects(n.redirects, t);
  }
  return [...byNode.values()].map(({ rtts, waitUs, ...n }) => ({
    ...n,
    linkRttsUs: [...rtts].sort((a, b) => a - b),
    waitMs: ms(waitUs),
    roundTripSharePct: totalRoundTrips > 0 ? Math.round((1000 * n.roundTrips) / totalRoundTrips) / 10 : 0,
  }));
}

export function countRedirects(timelines: readonly ConnectionTimeline[]): Redirects {
  const r: Redirects = { moved: 0, ask: 0 };
  for (const t of timelines) addRedirects(r, t);
  return r;
}

function addRedirects(r: Redirects, t: ConnectionTimeline): void {
  for (const rt of t.roundTrips) {
    for (const c of rt.commands) {
      if (c.errorPrefix === 'MOVED') r.moved++;
      else if (c.errorPrefix === 'ASK') r.ask++;
    }
  }
}

/** How a cluster client learns the slot map; a plain Redis refuses them (cluster support disabled). */
const SLOT_MAP_COMMANDS: ReadonlySet<string> = new Set(['CLUSTER SLOTS', 'CLUSTER SHARDS', 'CLUSTER NODES']);

/**
 * Whether the trace's clients spoke to a Redis Cluster: one read the slot map or was redirected. Node
 * fields alone do not say it: a Sentinel set-up's traces name their nodes too, and have no slots.
 */
export function spokeToCluster(timelines: readonly ConnectionTimeline[]): boolean {
  return timelines.some((t) =>
    t.roundTrips.some((rt) =>
      rt.commands.some((c) => (SLOT_MAP_COMMANDS.has(c.name) && c.errorPrefix === undefined && c.reply !== '-') || c.errorPrefix === 'MOVED' || c.errorPrefix === 'ASK'),
    ),
  );
}

/** "3 MOVED, 1 ASK redirects: each an extra round trip ..."; undefined when there were none. */
export function redirectLine(r: Redirects): string | undefined {
  if (r.moved + r.ask === 0) return undefined;
  return (
    `${r.moved} MOVED, ${r.ask} ASK redirects: each an extra round trip ` +
    '(the client sends the command again to the node named; after MOVED it also re-reads the slot map)'
  );
}
