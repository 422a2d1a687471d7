import type { CommandStats, LatencySummary, StatsSnapshot } from './types.js';

/**
 * The latency of a command merged over several snapshots (cluster and Sentinel totals, where
 * `merged` carries the percentiles of the node that served it most: summaries cannot be merged).
 * Its count, sum, mean and max are made those of every part, exact: /metrics serves count and sum
 * as a summary's `_count` and `_sum`, which must never fall, and the busiest node's fell when
 * another node overtook it with less time in all (its `_sum` went from 10 s to 5 s).
 */
export function exactLatencyTotals(merged: Record<string, CommandStats>, parts: readonly StatsSnapshot[]): Record<string, CommandStats> {
  const out: Record<string, CommandStats> = {};
  for (const [name, c] of Object.entries(merged)) {
    const of = (kind: 'serverUs' | 'clientUs'): LatencySummary[] => parts.flatMap((p) => (p.commands[name] ? [p.commands[name][kind]] : []));
    out[name] = { ...c, serverUs: overAll(c.serverUs, of('serverUs')), clientUs: overAll(c.clientUs, of('clientUs')) };
  }
  return out;
}

function overAll(shown: LatencySummary, all: readonly LatencySummary[]): LatencySummary {
  let count = 0;
  let sum = 0;
  let max = 0;
  for (const s of all) {
    count += s.count;
    sum += s.sum;
    max = Math.max(max, s.max);
  }
  // Rounded as LatencyHistogram.summary() rounds its mean.
  return { ...shown, count, sum, max, mean: count === 0 ? 0 : Math.round((sum / count) * 1000) / 1000 };
}
