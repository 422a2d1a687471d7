/**
 * What each connection of a trace used, and the session's totals: commands, replies, round trips,
 * flights, depth, bytes, and where its time went (analyze.ts's header: lead, wait, think, tail,
 * server). Pure: timelines in, summaries out.
 */
import type { CommandEvent } from '../stats/types.js';
import { depthBucket } from '../tap/counters.js';
import { ms } from './opportunities.js';
import { roundTripWaitUs, type ConnectionTimeline, type RoundTrip } from './timeline.js';

export interface Usage {
  commands: number;
  replies: number;
  errors: number;
  pushes: number;
  roundTrips: number;
  flights: number;
  maxDepth: number;
  /** Round trips by requests carried: "1", "2-3", "4-7", ... */
  depthHistogram: Record<string, number>;
  blockingCommands: number;
  waitMs: number;
  thinkMs: number;
  serverMs: number;
  leadMs: number;
  tailMs: number;
  bytesUp: number;
  bytesDown: number;
}

export interface ConnectionSummary extends Usage {
  conn: number;
  client?: string;
  /** Cluster traces: the real node this connection's listener fronted. */
  node?: string;
  startMs: number;
  spanMs: number;
}

export interface Totals extends Usage {
  connections: number;
  /** First event to last, across connections. */
  wallMs: number;
}

export function summarizeConnection(t: ConnectionTimeline): ConnectionSummary {
  const u = emptyUsage();
  let waitUs = 0;
  let thinkUs = 0;
  let serverUs = 0;
  let prev: RoundTrip | undefined;
  for (const rt of t.roundTrips) {
    u.roundTrips++;
    u.flights += rt.flights;
    u.maxDepth = Math.max(u.maxDepth, rt.commands.length);
    const bucket = depthBucket(rt.commands.length);
    u.depthHistogram[bucket] = (u.depthHistogram[bucket] ?? 0) + 1;
    waitUs += roundTripWaitUs(t, rt);
    serverUs += rt.serverUs;
    if (prev) thinkUs += Math.max(0, rt.startUs - prev.endUs);
    prev = rt;
    for (const c of rt.commands) countCommand(u, c);
  }
  for (const c of t.noRoundTrip) countCommand(u, c);
  u.pushes = t.pushes.length;
  for (const p of t.pushes) u.bytesDown += p.bytes;
  const first = t.roundTrips[0];
  const last = t.roundTrips[t.roundTrips.length - 1];
  u.waitMs = ms(waitUs);
  u.thinkMs = ms(thinkUs);
  u.serverMs = ms(serverUs);
  u.leadMs = first ? ms(Math.max(0, first.startUs - t.startUs)) : 0;
  u.tailMs = last ? ms(Math.max(0, t.endUs - last.endUs)) : 0;
  const s: ConnectionSummary = { conn: t.conn, startMs: ms(t.startUs), spanMs: ms(t.endUs - t.startUs), ...u };
  if (t.client !== undefined) s.client = t.client;
  if (t.node !== undefined) s.node = t.node;
  return s;
}

export function sumUsage(conns: readonly ConnectionSummary[], timelines: readonly ConnectionTimeline[]): Totals {
  const u = emptyUsage();
  for (const c of conns) {
    for (const k of ['commands', 'replies', 'errors', 'pushes', 'roundTrips', 'flights', 'blockingCommands', 'bytesUp', 'bytesDown'] as const) u[k] += c[k];
    for (const k of ['waitMs', 'thinkMs', 'serverMs', 'leadMs', 'tailMs'] as const) u[k] = ms(u[k] * 1000 + c[k] * 1000);
    u.maxDepth = Math.max(u.maxDepth, c.maxDepth);
    for (const [b, n] of Object.entries(c.depthHistogram)) u.depthHistogram[b] = (u.depthHistogram[b] ?? 0) + n;
  }
  let startUs = Infinity;
  let endUs = -Infinity;
  for (const t of timelines) {
    startUs = Math.min(startUs, t.startUs);
    endUs = Math.max(endUs, t.endUs);
  }
  return { connections: conns.length, wallMs: timelines.length > 0 ? ms(endUs - startUs) : 0, ...u };
}

function countCommand(u: Usage, c: CommandEvent): void {
  u.commands++;
  if (c.deliveredUs !== undefined) u.replies++;
  if (c.reply === '-' || c.reply === '!') u.errors++;
  if (c.blocking) u.blockingCommands++;
  u.bytesUp += c.bytesUp;
  u.bytesDown += c.bytesDown;
}

function emptyUsage(): Usage {
  return {
    commands: 0, replies: 0, errors: 0, pushes: 0, roundTrips: 0, flights: 0, maxDepth: 0, depthHistogram: {},
    blockingCommands: 0, waitMs: 0, thinkMs: 0, serverMs: 0, leadMs: 0, tailMs: 0, bytesUp: 0, bytesDown: 0,
  };
}
