import type { LinkSettings } from '../link/types.js';
import type { StatsSnapshot } from '../stats/types.js';
import type { TapRegistry } from './server.js';

// Temporary until the stats registry lands.
export function createRegistry(): TapRegistry | undefined {
  return undefined;
}
export function renderMetrics(_s: StatsSnapshot): string {
  return '';
}
export function emptySnapshot(link: LinkSettings): StatsSnapshot {
  const totals = {
    commands: 0, replies: 0, pushes: 0, errorReplies: 0, errorsByPrefix: {}, roundTrips: 0, flights: 0, maxDepth: 0,
    depthHistogram: {}, blockingCommands: 0, bytesUp: 0, bytesDown: 0, chunksUp: 0, chunksDown: 0, unparsedBytes: 0,
  };
  return { totals, commands: {}, connections: { active: 0, total: 0 }, link };
}
