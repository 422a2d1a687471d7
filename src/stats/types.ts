/**
 * Plain-JSON shapes of what the proxy counts. GET /stats returns a StatsSnapshot; every field is
 * defined in the README ("Counters"). The per-connection shapes belong to the tap (tap/counter-types.ts)
 * and the latency summary to the histogram (numbers/histogram.ts); they are re-exported here.
 */
import type { LinkSettings } from '../link/types.js';
import type { CommandStats, Counters } from '../tap/counter-types.js';

export type { LatencySummary } from '../numbers/histogram.js';
export type {
  Counters,
  CommandStats,
  ConnectionInfo,
  CommandEvent,
  PushEvent,
  ConnectionEvent,
  TapEvent,
} from '../tap/counter-types.js';

export interface StatsSnapshot {
  totals: Counters;
  commands: Record<string, CommandStats>;
  connections: { active: number; total: number };
  link: LinkSettings;
}
