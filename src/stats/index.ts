/** What the rest of redis-rtt uses from stats: the registry that sums the taps, and its renderers. */
export { StatsRegistry, type OpenConnectionOptions, type StatsRegistryOptions } from './registry.js';
export { renderPrometheus, snapshotFamilies, escapeLabelValue, type MetricFamily, type MetricSample, type MetricType } from './prometheus.js';
export { renderSummaryTable, type SummaryTableOptions } from './summary-table.js';
export type * from './types.js';
