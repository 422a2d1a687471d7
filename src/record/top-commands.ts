/**
 * The commands that cost the most waiting. A round trip's wait (and Redis's time in it) is shared equally
 * among the commands it carried, so the column sums to the session's total wait.
 */
import type { CommandEvent } from '../stats/types.js';
import { ms } from './opportunities.js';
import { roundTripWaitUs, type ConnectionTimeline } from './timeline.js';

export interface TopCommand {
  name: string;
  count: number;
  errors: number;
  /** Time waited, a round trip's wait split equally among its commands. */
  waitedMs: number;
  /** Share of all time waited, percent. */
  sharePct: number;
  /** Round trips it accounts for (one per round trip, split the same way). */
  roundTrips: number;
  /** Mean of request arrived -> reply delivered; null when none of them had its reply (a trace cut off). */
  meanUs: number | null;
  /** Redis's time, a round trip's share split the same way. */
  serverMs: number;
}

/** Commands by time waited, most first, at most `top` of them. */
export function topCommands(timelines: readonly ConnectionTimeline[], top: number): TopCommand[] {
  const acc = new Map<string, { count: number; errors: number; waitUs: number; rts: number; latencyUs: number; latencyN: number; serverUs: number }>();
  let totalWaitUs = 0;
  const counted = (c: CommandEvent) => {
    let a = acc.get(c.name);
    if (!a) acc.set(c.name, (a = { count: 0, errors: 0, waitUs: 0, rts: 0, latencyUs: 0, latencyN: 0, serverUs: 0 }));
    a.count++;
    if (c.reply === '-' || c.reply === '!') a.errors++;
    return a;
  };
  for (const t of timelines) {
    for (const rt of t.roundTrips) {
      const share = 1 / rt.commands.length;
      // As the totals count it: the recording's TCP handshake hold is set-up, not waiting.
      const holdUs = rt === t.roundTrips[0] ? t.handshakeHoldUs : 0;
      const waitUs = roundTripWaitUs(t, rt);
      totalWaitUs += waitUs;
      for (const c of rt.commands) {
        const a = counted(c);
        a.waitUs += waitUs * share;
        a.rts += share;
        if (c.deliveredUs !== undefined) {
          a.latencyUs += c.deliveredUs - c.arrivedUs - Math.max(0, rt.startUs + holdUs - c.arrivedUs);
          a.latencyN++;
        }
        a.serverUs += rt.serverUs * share;
      }
    }
    // Sent under CLIENT REPLY OFF or SKIP: counted, never waited on.
    for (const c of t.noRoundTrip) counted(c);
  }
  return [...acc.entries()]
    .map(([name, a]) => ({
      name,
      count: a.count,
      errors: a.errors,
      waitedMs: ms(a.waitUs),
      sharePct: totalWaitUs > 0 ? Math.round((1000 * a.waitUs) / totalWaitUs) / 10 : 0,
      roundTrips: Math.round(a.rts * 100) / 100,
      meanUs: a.latencyN > 0 ? Math.round((10 * a.latencyUs) / a.latencyN) / 10 : null,
      serverMs: ms(a.serverUs),
    }))
    .sort((x, y) => y.waitedMs - x.waitedMs || y.count - x.count || x.name.localeCompare(y.name))
    .slice(0, top);
}
