import { describe, expect, it } from 'vitest';
import { clusterBenchReport, type ClusterBenchReport, type ClusterBenchRow } from '../../src/cluster/bench/cluster-bench.js';
import { renderClusterTable } from '../../src/cluster/bench/cluster-table.js';

const row = (shape: string, samples: number): ClusterBenchRow => ({
  config: 'rtt=1ms',
  shape,
  reads: 'master',
  n: 20,
  samples,
  usPerOp: 1100,
  usPerOpMin: 1000,
  usPerOpMax: 1300,
  roundTrips: 20,
  perNode: [{ upstream: '127.0.0.1:30001', role: 'master', zone: null, rttUs: 1000, roundTrips: 20 }],
});

describe('the cluster bench table', () => {
  it('an interrupted run shows how many of the asked samples each row has', () => {
    const report: ClusterBenchReport = { rows: [row('seq SET', 2), row('seq GET', 1)], nodes: 6, repeat: 5, interrupted: true, stoppedBy: 'SIGINT' };
    const lines = renderClusterTable(report).split('\n');
    expect(lines[0]).toMatch(/^config\s+shape\s+reads\s+us\/op \(min-max\)\s+samples\s+round trips\s+per node/);
    expect(lines.find((l) => l.includes('seq SET'))).toMatch(/^rtt=1ms\s+seq SET\s+primaries\s+1\.1ms \(1ms-1\.3ms\)\s+2 of 5\s+20\s+P@1ms:20$/);
    expect(lines.find((l) => l.includes('seq GET'))).toMatch(/\s1 of 5\s+20\s/);
    expect(lines.at(-2)).toBe('interrupted (Ctrl-C): only the samples that finished are reported');
  });

  it('its last line names the signal that stopped it (it said Ctrl-C after a SIGTERM too), none for a library caller\'s own abort', () => {
    const stopped = (c: AbortController): string => renderClusterTable(clusterBenchReport([row('seq SET', 2)], 6, 5, c.signal)).split('\n').at(-2)!;
    const by = (reason?: string): AbortController => {
      const c = new AbortController();
      c.abort(reason);
      return c;
    };
    expect(stopped(by('SIGTERM'))).toBe('interrupted (SIGTERM): only the samples that finished are reported');
    expect(stopped(by('SIGINT'))).toBe('interrupted (Ctrl-C): only the samples that finished are reported');
    expect(stopped(by())).toBe('interrupted: only the samples that finished are reported');
    expect(clusterBenchReport([], 6, 5, by('SIGTERM').signal)).toEqual({ rows: [], nodes: 6, repeat: 5, interrupted: true, stoppedBy: 'SIGTERM' });
    expect(clusterBenchReport([], 6, 5, new AbortController().signal)).toEqual({ rows: [], nodes: 6, repeat: 5 });
  });

  it('a run that finished has no samples column: every row has all of them', () => {
    const report: ClusterBenchReport = { rows: [row('seq SET', 5)], nodes: 6, repeat: 5 };
    const text = renderClusterTable(report);
    expect(text).not.toMatch(/samples|of 5|interrupted/);
    expect(text.split('\n')[2]).toMatch(/^rtt=1ms\s+seq SET\s+primaries\s+1\.1ms \(1ms-1\.3ms\)\s+20\s+P@1ms:20$/);
  });
});
