/**
 * Since each link's proxy runs in a process of its own, `cpu` is the driver alone and the proxy's
 * CPU is a figure of its own (prx). Older reports (the fixture is one) keep their old wording.
 */
import { describe, expect, it } from 'vitest';
import { renderCsv, renderMarkdown, renderTable } from '../../src/report/index.js';
import { loadRows } from '../../src/report/open-loop/table.js';
import { whereTimeWent } from '../../src/report/table-model.js';
import { isOk, type BenchReport } from '../../src/results/types.js';
import type { OpenLoopResult } from '../../src/workload/open-loop/types.js';
import { benchFixture } from './helpers.js';

function withOwnProcesses(report: BenchReport): BenchReport {
  return {
    ...report,
    method: { ...report.method, proxies: 'own-process' },
    results: report.results.map((r) => (r.link === 'direct' || !isOk(r) ? r : { ...r, breakdown: { ...r.breakdown, proxyCpuMs: r.medianMs * 0.4 } })),
  };
}

describe('the cpu share in the bench table', () => {
  it('says the driver alone, with the proxy\'s share as prx, when the proxies had processes of their own', () => {
    const report = withOwnProcesses(benchFixture());
    const text = renderTable(report);
    expect(text).toContain("cpu = the driver's user+system CPU alone (each link's proxy runs in a process of its own), prx = that proxy process's CPU");
    expect(text).not.toContain('in-process proxies included');
    const crossAz = report.results.find((r) => r.link === 'cross-az')!;
    expect(whereTimeWent(crossAz)).toMatch(/^link +\d+% srv +\d+% cpu +\d+% prx 40%$/);
    expect(whereTimeWent(report.results.find((r) => r.link === 'direct')!)).not.toContain('prx');
  });

  it('keeps the old wording, and no prx, for a report from before', () => {
    const text = renderTable(benchFixture());
    expect(text).toContain('cpu = driver user+system CPU (in-process proxies included');
    expect(text).not.toContain('prx');
  });
});

describe('CSV and markdown', () => {
  const report = withOwnProcesses(benchFixture());
  const crossAz = report.results.find((r) => r.link === 'cross-az' && r.mode === 'pipeline' && r.batch === 100)!;
  Object.assign(crossAz, { medianMs: 12.345678901, speedup: 70.98765, modelErrorPct: -2.34567, opsPerSec: 81000.4444 });
  crossAz.breakdown = { ...crossAz.breakdown!, proxyCpuMs: 4.938271560 };
  const cells = (lines: string[], split: (l: string) => string[]): Record<string, string> => {
    const header = split(lines[0]!);
    const row = split(lines.find((l) => split(l)[0] === 'cross-az' && split(l)[2] === 'pipeline' && split(l)[4] === '100')!);
    return Object.fromEntries(header.map((h, i) => [h, row[i]!]));
  };

  it("carry the proxy's CPU (the table's prx), rounded as the table rounds milliseconds", () => {
    const csv = cells(renderCsv(report).split('\r\n'), (l) => l.split(','));
    expect(csv['breakdown.proxyCpuMs']).toBe('4.94');
    const md = cells(renderMarkdown(report).split('\n').filter((l) => l.startsWith('| ')), (l) => l.slice(2, -2).split(' | '));
    expect(md['breakdown.proxyCpuMs']).toBe('4.94');
  });

  it('print each figure as the table does, as a bare number: no float noise', () => {
    const csv = cells(renderCsv(report).split('\r\n'), (l) => l.split(','));
    expect(csv).toMatchObject({ medianMs: '12.3', speedup: '71', modelErrorPct: '-2.3', opsPerSec: '81000' });
    expect(renderTable(report)).toMatch(/pipeline\s+set\s+100\s+1000\s+12\.3\s/);
    expect(renderMarkdown(report)).toContain('| 12.3 |');
    expect(renderMarkdown(report)).not.toContain('12.345');
    for (const [name, value] of Object.entries(csv)) {
      if (name !== 'histogram' && name !== 'error') expect(value, name).not.toMatch(/\.\d{4,}/);
    }
  });
});

describe('the where-the-time-went column', () => {
  // Shares reach 100% and more: the parts overlap, and the proxy's CPU is apart from the median.
  const wide = (report: BenchReport): BenchReport => ({
    ...report,
    results: report.results.map((r, i) =>
      !isOk(r) ? r
      : i === 0 ? { ...r, breakdown: { ...r.breakdown, linkWaitMs: r.medianMs } }
      : i === 1 ? { ...r, breakdown: { ...r.breakdown, proxyCpuMs: r.medianMs * 12.34 } }
      : r),
  });

  it('keeps a space between a label and a share of 100% or more', () => {
    const [full, over] = wide(benchFixture()).results;
    expect(whereTimeWent(full!)).toMatch(/^link 100% srv +\d+% cpu +\d+%$/);
    expect(whereTimeWent(over!)).toMatch(/ prx 1234%$/);
  });

  it('gives every row the widest share, so the sub-columns line up down the table', () => {
    const lines = renderTable(wide(benchFixture())).split('\n').filter((l) => / srv +\d+%/.test(l));
    expect(lines.length).toBeGreaterThan(20);
    for (const label of ['link', 'srv', 'cpu']) {
      expect(new Set(lines.map((l) => l.indexOf(` ${label} `))).size, label).toBe(1);
    }
    for (const l of lines) expect(l).toMatch(/link +\d+% srv +\d+% cpu +\d+%( prx +\d+%)?$/);
  });
});

describe('the open-loop load table', () => {
  it('gives the proxy process\'s CPU its own column, - without a proxy', () => {
    const base = { processCpuPct: 21.2, error: undefined } as unknown as OpenLoopResult;
    const { head, rows } = loadRows([
      { ...base, link: 'cross-az', proxyCpuPct: 63.4 } as OpenLoopResult,
      { ...base, link: 'direct' } as OpenLoopResult,
    ].map((r) => ({ ...r, mode: 'seq', clients: 8, batchWindowUs: 0, targetRate: 2000, achievedRate: 2000, perClientRate: 250, correctedP99FirstHalfUs: 1, correctedP99SecondHalfUs: 1, backlog: { bucketMs: 1, max: [], peak: 0 }, unsent: 0, littleConcurrency: null, measuredConcurrency: 1, latenessUs: { p50: 1, p99: 1, max: 1 }, driverSaturated: false, saturated: null })));
    const at = head.indexOf('proxy cpu');
    expect(head[at - 1]).toBe('cpu');
    expect(rows.map((r) => [r[at - 1], r[at]])).toEqual([['21%', '63%'], ['21%', '-']]);
  });
});
