/** What the rest of redis-rtt uses from stats (the proxy, the CLI, reports). */
export { StatsRegistry, type OpenConnectionOptions, type StatsRegistryOptions } from './registry.js';
export { CommandTable, CommandEntry, DEFAULT_MAX_COMMAND_NAMES, OTHER_COMMAND } from './command-table.js';
export { LatencyHistogram, LATENCY_MAX_US, EMPTY_SUMMARY } from './histogram.js';
export { addCounters, copyCounters, depthBucket, compareDepthBuckets, newCounters, recordDepth } from './counters.js';
export { renderPrometheus, snapshotFamilies, escapeLabelValue, type MetricFamily, type MetricSample, type MetricType } from './prometheus.js';
export { renderSummaryTable, type SummaryTableOptions } from './summary-table.js';
export type * from './types.js';
