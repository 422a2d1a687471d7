/** A fixed StatsSnapshot for the golden-file tests of the pure renderers. */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { LatencySummary, StatsSnapshot } from '../../src/stats/types.js';

const lat = (count: number, p50: number, p99: number, max: number, mean: number): LatencySummary => ({
  count,
  p50,
  p90: Math.round((p50 + p99) / 2),
  p99,
  p999: max,
  max,
  mean,
  sum: mean * count,
});

export const SNAPSHOT: StatsSnapshot = {
  totals: {
    commands: 12_043,
    replies: 12_040,
    pushes: 12,
    errorReplies: 3,
    errorsByPrefix: { ERR: 2, WRONGTYPE: 1 },
    roundTrips: 1_030,
    flights: 1_041,
    maxDepth: 64,
    depthHistogram: { '64-127': 10, '1': 1_000, '2-3': 20 },
    blockingCommands: 1,
    bytesUp: 512_345,
    bytesDown: 1_234_567,
    chunksUp: 1_041,
    chunksDown: 1_200,
    unparsedBytes: 0,
  },
  commands: {
    GET: { count: 8_000, errors: 0, serverUs: lat(8_000, 45, 120, 900, 52.5), clientUs: lat(8_000, 2_050, 2_400, 9_000, 2_101.25) },
    SET: { count: 4_000, errors: 1, serverUs: lat(4_000, 50, 130, 700, 55), clientUs: lat(4_000, 2_060, 2_450, 8_000, 2_110) },
    BLPOP: {
      count: 1,
      errors: 0,
      serverUs: lat(1, 5_000_000, 5_000_000, 5_000_000, 5_000_000),
      clientUs: lat(1, 5_002_000, 5_002_000, 5_002_000, 5_002_000),
      blocking: true,
    },
    'ODD"NAME\\\n': { count: 42, errors: 2, serverUs: lat(0, 0, 0, 0, 0), clientUs: lat(0, 0, 0, 0, 0) },
  },
  connections: { active: 2, total: 5 },
  link: { upUs: 1_000, downUs: 1_000, jitterUs: 100, jitterDist: 'normal', bandwidthBps: 0, lossUp: 0, lossDown: 0, lossBurst: 0, mssBytes: 1448 },
};

/** Compares `text` with fixtures/<name>; UPDATE_GOLDEN=1 rewrites the file instead. */
export function expectGolden(name: string, text: string): void {
  const path = new URL(`./fixtures/${name}`, import.meta.url);
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, 'utf8'));
}
