/**
 * The two batch-size charts: median time per sample against batch size (with the round-trip
 * model beside each link) and speedup over seq. Both follow one mode (pipeline when it ran) and
 * one colour, marker and dash per link, the same in every chart.
 */
import { isOk, type BenchReport, type MeasuredResult, type Mode, type Workload } from '../../results/types.js';
import { fmtUsLabel } from '../../format.js';
import { groupByLink, mainWorkload, primaryBatchMode, type LinkGroup } from '../order.js';
import { referenceStyle, seriesStyle } from '../../svg/style.js';
import { renderXYChart, type XYSeries } from '../../svg/xy-chart.js';
import type { Chart } from './chart.js';

interface Focus {
  mode: Mode;
  workload: Workload;
  groups: LinkGroup[];
}

function focus(report: BenchReport): Focus | null {
  const mode = primaryBatchMode(report.results);
  if (!mode) return null;
  const workload = mainWorkload(report.results, mode);
  if (!workload) return null;
  return { mode, workload, groups: groupByLink(report.results) };
}

function pick(g: LinkGroup, f: Focus): MeasuredResult[] {
  return g.results.filter(isOk).filter((r) => r.mode === f.mode && r.workload === f.workload);
}

export function linkLabel(g: LinkGroup): string {
  if (!g.proxied) return `${g.link} (no proxy)`;
  return g.linkRttUs > 0 ? `${g.link} (${fmtUsLabel(g.linkRttUs)})` : g.link;
}

export function timeVsBatchChart(report: BenchReport): Chart | null {
  const f = focus(report);
  if (!f) return null;
  const series: XYSeries[] = [];
  f.groups.forEach((g, i) => {
    const rs = pick(g, f);
    if (rs.length === 0) return;
    const style = seriesStyle(i);
    series.push({
      label: linkLabel(g),
      style,
      points: rs.map((r) => ({ x: r.batch, y: r.medianMs, lo: r.minMs, hi: r.maxMs })),
    });
    // The model only says something where a link adds RTT; on local it equals the measurement.
    const model = rs.filter((r) => r.modelMs !== null && r.modelMs > 0);
    if (g.linkRttUs > 0 && model.length > 0) {
      series.push({
        label: `${g.link} model`,
        style: referenceStyle(style),
        points: model.map((r) => ({ x: r.batch, y: r.modelMs as number, mark: false })),
      });
    }
  });
  if (series.length === 0) return null;
  const svg = renderXYChart({
    name: 'time-vs-batch',
    title: `Median time per sample vs batch size (${f.mode}, ${f.workload.toUpperCase()})`,
    subtitle: 'log-log; whiskers = fastest and slowest repetition; dotted = model: ceil(N/B) x RTT + local',
    x: { label: 'batch size B (commands per round trip)', scale: 'log' },
    y: { label: 'median time per sample (ms)', scale: 'log' },
    series,
  });
  return {
    name: 'time-vs-batch',
    svg,
    seriesCount: series.length,
    caption:
      'On a link with real RTT the time falls almost in proportion to the round trips saved, and follows the ' +
      'dotted model; on local it flattens early because the cost there is CPU and syscalls, not waiting.',
  };
}

export function speedupChart(report: BenchReport): Chart | null {
  const f = focus(report);
  if (!f) return null;
  const series: XYSeries[] = [];
  f.groups.forEach((g, i) => {
    const rs = pick(g, f).filter((r) => r.speedup !== null && r.speedup > 0);
    if (rs.length === 0) return;
    series.push({ label: linkLabel(g), style: seriesStyle(i), points: rs.map((r) => ({ x: r.batch, y: r.speedup as number })) });
  });
  if (series.length === 0) return null;
  const svg = renderXYChart({
    name: 'speedup',
    title: `Speedup over seq vs batch size (${f.mode}, ${f.workload.toUpperCase()})`,
    subtitle: 'seq median / this median, same link and workload; log-log',
    x: { label: 'batch size B (commands per round trip)', scale: 'log' },
    y: { label: 'speedup over seq (x)', scale: 'log', format: (v) => `${Number(v.toPrecision(3))}x` },
    series,
    hlines: [{ y: 1, label: 'seq (no gain)' }],
  });
  return {
    name: 'speedup',
    svg,
    seriesCount: series.length,
    caption: 'How many times faster than a one-command-per-round-trip loop. The farther the link, the more batching pays.',
  };
}
