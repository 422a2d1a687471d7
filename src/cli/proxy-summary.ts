import type { StatsSnapshot } from '../stats/types.js';

// Temporary until the stats summary table lands.
export function renderSummary(s: StatsSnapshot): string {
  return JSON.stringify(s.totals) + '\n';
}
