// docs/open-loop.md's "JSON" section lists the fields of `bench --rate --json`: every key of the
// report and of a row is named there. Records over keyof: a field added to the types and not here
// fails to compile, and one not in the section fails the test.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OpenLoopReport, OpenLoopResult } from '../../src/workload/open-loop/types.js';

const doc = readFileSync(new URL('../../docs/open-loop.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('\n## JSON\n'), doc.indexOf('\n## ', doc.indexOf('\n## JSON\n') + 1));
const named = new Set([...section.matchAll(/[A-Za-z][A-Za-z0-9]*/g)].map((m) => m[0]));

const REPORT: Record<keyof OpenLoopReport, true> = {
  kind: true,
  environment: true,
  sloUs: true,
  results: true,
  notes: true,
  connectionSetup: true,
  error: true,
  interrupted: true,
  stoppedBy: true,
};

const ROW: Record<keyof OpenLoopResult, true> = {
  ...{ link: true, linkRttUs: true, mode: true, arrival: true, clients: true, targetRate: true, achievedRate: true },
  ...{ durationS: true, drainS: true, scheduled: true, sent: true, completed: true, failed: true, unsent: true },
  ...{ correctedLatencyUs: true, uncorrectedLatencyUs: true, correctedP99FirstHalfUs: true, correctedP99SecondHalfUs: true },
  ...{ correctedMeanUs: true, uncorrectedMeanUs: true, batchWindowUs: true, maxBatch: true, batches: true, roundTrips: true },
  ...{ batchWaitUs: true, latenessUs: true, connectionWaitUs: true, punctualCorrectedP99Us: true, driverSaturated: true },
  ...{ backlog: true, littleConcurrency: true, measuredConcurrency: true, perClientRate: true, processCpuPct: true },
  ...{ proxyCpuPct: true, saturated: true, histograms: true, note: true, error: true },
};

describe('docs/open-loop.md, JSON', () => {
  it('is found, and names every key of the report', () => {
    expect(section.length).toBeGreaterThan(500);
    expect(Object.keys(REPORT).filter((k) => !named.has(k))).toEqual([]);
  });

  it('names every key of a result row', () => {
    expect(Object.keys(ROW).filter((k) => !named.has(k))).toEqual([]);
  });
});
