/**
 * Issue 23's goals, cell by cell, from the excess table: pure, so the verdicts are tested on their
 * own and every run prints them the same way. Each compares medians over rounds.
 * - p50: redis-rtt's excess at most toxiproxy's;
 * - p99: at most toxiproxy's, or under 0.1 ms;
 * - max: at most toxiproxy's + 2 ms;
 * - CPU per request: at most toxiproxy's, or twice it at 1 ms, below the coarse timer's granularity;
 * - self-report: `self.roundTripAddedUs` p99 (per round trip; `self.addedUs` p99 where a build has
 *   no round trips) within max(0.2 ms, 30%) of the client's p99 excess.
 */
import type { ExcessRow } from './summary.js';

export const GOALS = ['p50', 'p99', 'max', 'cpu', 'self'] as const;
export type Goal = (typeof GOALS)[number];

/** Per goal: met, missed, or null where the run has no figure for it (a build without self.addedUs). */
export type CellVerdicts = Record<Goal, boolean | null>;

const P99_FLOOR_MS = 0.1;
const MAX_ALLOWANCE_MS = 2;
const SELF_FLOOR_MS = 0.2;
const SELF_SHARE = 0.3;
/** At and below this delay the CPU goal allows twice toxiproxy's. */
const FINE_DELAY_MS = 1;

export function cellVerdicts(row: ExcessRow): CellVerdicts {
  const ours = row.proxies['redis-rtt'];
  const theirs = row.proxies.toxiproxy;
  const cpuFactor = row.cell.delayMs <= FINE_DELAY_MS ? 2 : 1;
  const client = ours.p99Ms.median;
  const own = (row.self.roundTripP99Ms ?? row.self.addedP99Ms)?.median;
  return {
    p50: ours.p50Ms.median <= theirs.p50Ms.median,
    p99: ours.p99Ms.median <= theirs.p99Ms.median || ours.p99Ms.median < P99_FLOOR_MS,
    max: ours.maxMs.median <= theirs.maxMs.median + MAX_ALLOWANCE_MS,
    cpu: ours.cpuUsPerRequest.median <= cpuFactor * theirs.cpuUsPerRequest.median,
    self: own === undefined ? null : Math.abs(own - client) <= Math.max(SELF_FLOOR_MS, SELF_SHARE * client),
  };
}

/** Per goal, the cells met out of the cells judged. */
export function goalCounts(rows: readonly ExcessRow[]): Record<Goal, { met: number; of: number }> {
  const counts = Object.fromEntries(GOALS.map((g) => [g, { met: 0, of: 0 }])) as Record<Goal, { met: number; of: number }>;
  for (const row of rows) {
    const v = cellVerdicts(row);
    for (const g of GOALS) {
      if (v[g] === null) continue;
      counts[g].of++;
      if (v[g]) counts[g].met++;
    }
  }
  return counts;
}
