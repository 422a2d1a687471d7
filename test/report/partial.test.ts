import { describe, expect, it } from 'vitest';
import {
  benchCharts,
  calibrateCharts,
  renderCalibrateTable,
  renderCsv,
  renderHtml,
  renderMarkdown,
  renderReading,
  renderTable,
} from '../../src/report/index.js';
import { percentileCurve } from '../../src/svg/percentile-curve.js';
import type { BenchReport, BenchResult, CalibrateReport } from '../../src/results/types.js';
import { benchFixture, calibrateFixture } from './helpers.js';

function only(keep: (r: BenchResult) => boolean): BenchReport {
  const report = benchFixture();
  return { ...report, results: report.results.filter(keep) };
}

const EMPTY_BENCH: BenchReport = { ...benchFixture(), results: [], notes: [] };
const EMPTY_CALIBRATE: CalibrateReport = { ...calibrateFixture(), rows: [] };

function renderAll(report: BenchReport): string[] {
  return [renderTable(report), renderTable(report, { color: true }), renderCsv(report), renderMarkdown(report), renderHtml(report)];
}

describe('empty reports', () => {
  it('bench: every format renders, with no charts and no reading', () => {
    const [table, , csv, md, html] = renderAll(EMPTY_BENCH);
    expect(table).toContain('(no results)');
    expect(table).toContain('environment: node v20.19.5');
    expect(csv!.split('\r\n').filter(Boolean)).toHaveLength(1);
    expect(md).toContain('| link |');
    expect(html).not.toContain('data-chart');
    expect(html).toContain('(no results)');
    expect(renderReading(EMPTY_BENCH)).toEqual([]);
    expect(benchCharts(EMPTY_BENCH)).toEqual([]);
  });

  it('calibrate: table, csv, markdown and html render with no rows', () => {
    expect(renderCalibrateTable(EMPTY_CALIBRATE)).toContain('(no rows)');
    expect(renderCsv(EMPTY_CALIBRATE).split('\r\n').filter(Boolean)).toHaveLength(1);
    expect(renderMarkdown(EMPTY_CALIBRATE)).toContain('# redis-rtt calibrate');
    expect(renderHtml(EMPTY_CALIBRATE)).toContain('(no rows)');
    expect(calibrateCharts(EMPTY_CALIBRATE)).toEqual([]);
  });
});

describe('partial reports', () => {
  it('direct only: no proxy counts, so no round-trip or bytes chart, dashes in the table', () => {
    const report = only((r) => r.link === 'direct');
    const names = benchCharts(report).map((c) => c.name);
    expect(names).toEqual(['time-vs-batch', 'speedup', 'percentiles direct']);
    expect(renderTable(report)).toMatch(/seq\s+set\s+1\s+1000\s+[\d.]+\s+\S+\s+\S+\s+1000\s+-\s+-\s+-/);
    // One link: the reading has its first line only.
    expect(renderReading(report)).toHaveLength(1);
  });

  it('seq only: no batch charts and no reading, percentiles still drawn', () => {
    const report = only((r) => r.mode === 'seq');
    expect(benchCharts(report).map((c) => c.name)).toEqual(['round-trips', 'bytes', 'percentiles direct', 'percentiles local', 'percentiles cross-az']);
    expect(renderReading(report)).toEqual([]);
    for (const out of renderAll(report)) expect(out.length).toBeGreaterThan(100);
  });

  it('no seq: speedups are null, the reading says nothing rather than something wrong', () => {
    const report = only((r) => r.mode !== 'seq');
    for (const r of report.results) r.speedup = null;
    expect(renderReading(report)).toEqual([]);
    expect(benchCharts(report).map((c) => c.name)).not.toContain('speedup');
    expect(renderTable(report)).toContain('vs seq');
  });

  it('pipeline missing: the reading and charts fall back to the batched mode that ran', () => {
    const report = only((r) => r.mode !== 'pipeline');
    const reading = renderReading(report);
    expect(reading[0]).toMatch(/^at cross-az \(\+1\.2ms RTT\), MSET of (100|1000) keys cut 1000 SETs/);
    expect(benchCharts(report)[0]!.svg).toContain('(mset, SET)');
  });

  it('only failures: rows say FAILED, footnotes carry the errors, no charts', () => {
    const report = only((r) => r.error !== undefined);
    expect(report.results).toHaveLength(1);
    const table = renderTable(report);
    expect(table).toContain('FAILED');
    expect(table).toContain('[1] mget 1000 on cross-az failed: VerificationError');
    expect(benchCharts(report)).toEqual([]);
    expect(renderHtml(report)).toContain('class="failed"');
  });

  it('histograms that are missing or corrupt are skipped, not fatal', () => {
    expect(percentileCurve('')).toBeNull();
    expect(percentileCurve('not base64 at all!')).toBeNull();
    const report = benchFixture();
    report.results.forEach((r, i) => (r.histogram = i % 2 === 0 ? '' : 'HISTFAAAAgarbage'));
    const names = benchCharts(report).map((c) => c.name);
    expect(names.some((n) => n.startsWith('percentiles'))).toBe(false);
    expect(renderHtml(report)).toContain('data-chart="time-vs-batch"');
  });

  it('reading of the fixture: far link first, local second, numbers from the table', () => {
    expect(renderReading(benchFixture())).toEqual([
      'at cross-az (+1.2ms RTT), pipelining 100 cut 1000 SETs from 1.3 s to 18.2 ms (71x); beyond batch 100 the gain is ' +
        'under 1% of the seq time (best: 6.33 ms at batch 1000).',
      'on local the same change saves only 79.6 ms (85.3 ms -> 5.74 ms, 15x).',
    ]);
  });

  it('a link without local: direct is the comparison', () => {
    const reading = renderReading(only((r) => r.link !== 'local'));
    expect(reading[1]).toMatch(/^on direct \(no proxy\) the same change saves only/);
  });
});

describe('a lossy link in bench', () => {
  it('puts p99 and p99.9 right after the median, and only then', () => {
    const report = benchFixture();
    const plain = renderTable(report).split('\n').find((l) => l.includes('median ms'))!;
    expect(plain).not.toContain('p99.9');
    const lossy: BenchReport = {
      ...report,
      results: report.results.map((r, i) => (i === 0 ? { ...r, lossy: true as const, latencyUs: { ...r.latencyUs!, p999: 402_400 } } : r)),
    };
    const text = renderTable(lossy);
    expect(text.split('\n').find((l) => l.includes('median ms'))).toMatch(/median ms\s+p99 us\s+p99\.9 us\s+range ms/);
    expect(text).toContain('402400');
    expect(renderHtml(lossy)).toMatch(/median ms<\/th><th[^>]*>p99 us<\/th><th[^>]*>p99\.9 us/);
  });
});
