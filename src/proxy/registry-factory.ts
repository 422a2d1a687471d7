import type { LinkSettings } from '../link/types.js';
import { newCounters } from '../tap/counters.js';
import { renderPrometheus, type MetricFamily } from '../stats/prometheus.js';
import { StatsRegistry, type StatsRegistryOptions } from '../stats/registry.js';
import type { StatsSnapshot } from '../stats/types.js';
import type { TapRegistry } from './server.js';

export function createRegistry(options: StatsRegistryOptions = {}): TapRegistry {
  return new StatsRegistry(options);
}

export function renderMetrics(s: StatsSnapshot, extra: readonly MetricFamily[] = []): string {
  return renderPrometheus(s, extra);
}

/** The snapshot of a proxy running without the tap: only the link and connection counts. */
export function emptySnapshot(link: LinkSettings): StatsSnapshot {
  return { totals: newCounters(), commands: {}, connections: { active: 0, total: 0 }, link };
}
