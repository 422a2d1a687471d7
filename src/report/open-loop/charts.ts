/**
 * Charts of an open-loop report: per link, latency against the target rate (corrected solid,
 * uncorrected dotted in the same colour: the gap between them is the queueing a closed-loop
 * driver hides), and the percentile spectrum of each run, corrected and uncorrected.
 */
import { isOpenLoopOk, type MeasuredOpenLoopResult, type OpenLoopResult, type OpenLoopReport } from '../../workload/open-loop/types.js';
import { percentileChart, type Curve } from '../charts/percentile-charts.js';
import type { Chart } from '../charts/chart.js';
import { fmtCount, fmtUsLabel } from '../../format.js';
import { esc } from '../../svg/escape.js';
import { referenceStyle, seriesStyle } from '../../svg/style.js';
import { linearTicks, type Tick } from '../../svg/scale.js';
import { renderXYChart, type XYSeries } from '../../svg/xy-chart.js';
import { rowLabel } from './table.js';

function byLink(results: readonly OpenLoopResult[]): Map<string, MeasuredOpenLoopResult[]> {
  const m = new Map<string, MeasuredOpenLoopResult[]>();
  for (const r of results) {
    if (!isOpenLoopOk(r) || r.completed === 0) continue;
    m.set(r.link, [...(m.get(r.link) ?? []), r]);
  }
  return m;
}

/** One chart per link with a rate sweep: p99 corrected and uncorrected against the target rate. */
export function rateCurves(report: OpenLoopReport): Chart[] {
  const charts: Chart[] = [];
  for (const [link, rows] of byLink(report.results)) {
    const rated = rows.filter((r) => r.targetRate !== null);
    // A curve needs two rates at least: a run of one rate is in the tables and the spectrum.
    const groups = [...new Set(rated.map(rowLabel))].filter((g) => rated.filter((r) => rowLabel(r) === g).length >= 2);
    if (groups.length === 0) continue;
    const series: XYSeries[] = [];
    groups.forEach((g, i) => {
      const pts = rated.filter((r) => rowLabel(r) === g).sort((a, b) => (a.targetRate ?? 0) - (b.targetRate ?? 0));
      const style = seriesStyle(i);
      series.push({ label: `${g} corrected p99`, style, points: pts.map((r) => ({ x: r.targetRate as number, y: Math.max(1, r.correctedLatencyUs.p99) })) });
      series.push({ label: `${g} uncorrected p99`, style: referenceStyle(style), points: pts.map((r) => ({ x: r.targetRate as number, y: Math.max(1, r.uncorrectedLatencyUs.p99) })) });
    });
    const svg = renderXYChart({
      name: `rate ${link}`,
      title: `p99 latency against the offered rate: ${link}`,
      subtitle: 'solid: corrected (from the intended send time); dotted: uncorrected (from the actual send)',
      x: { label: 'target rate (commands/s, log scale)', scale: 'log', format: fmtCount },
      y: { label: 'p99 latency per command', scale: 'log', format: fmtUsLabel },
      series,
      ...(report.sloUs !== null ? { hlines: [{ y: report.sloUs, label: `--slo ${fmtUsLabel(report.sloUs)}` }] } : {}),
      attrs: `data-link="${esc(link)}"`,
    });
    charts.push({
      name: `rate ${link}`,
      svg,
      seriesCount: series.length,
      caption: `Where the solid line leaves the dotted one, commands wait in the backlog before they are sent: ${link} saturates there.`,
    });
  }
  return charts;
}

/** One percentile spectrum per link: every run, corrected and uncorrected. */
export function spectrumCharts(report: OpenLoopReport): Chart[] {
  const charts: Chart[] = [];
  for (const [link, rows] of byLink(report.results)) {
    const curves: Curve[] = [];
    rows.forEach((r, i) => {
      const label = `${rowLabel(r)} ${r.targetRate === null ? 'closed' : `${fmtCount(r.targetRate)}/s`}`;
      curves.push({ label: `${label} corrected`, styleIndex: i, base64: r.histograms.corrected });
      curves.push({ label: `${label} uncorrected`, styleIndex: i, style: referenceStyle(seriesStyle(i)), base64: r.histograms.uncorrected });
    });
    const chart = percentileChart(
      `spectrum ${link}`,
      `Latency per command by percentile: ${link}`,
      'solid: corrected (from the intended send time); dotted, same colour: uncorrected (from the actual send)',
      'latency per command',
      curves,
      `data-link="${esc(link)}"`,
    );
    if (chart) charts.push({ ...chart, caption: `Every command on ${link}; a corrected curve above its uncorrected twin is time spent queued.` });
  }
  return charts;
}

/** One chart per link: the backlog (commands due, not yet sent) over the run, a series per run. */
export function backlogCharts(report: OpenLoopReport): Chart[] {
  const charts: Chart[] = [];
  for (const [link, rows] of byLink(report.results)) {
    const series: XYSeries[] = rows
      .filter((r) => r.targetRate !== null && r.backlog.max.length > 1)
      .map((r, i) => ({
        label: `${rowLabel(r)} ${fmtCount(r.targetRate as number)}/s`,
        style: seriesStyle(i),
        points: r.backlog.max.map((b, k) => ({ x: (k * r.backlog.bucketMs) / 1000, y: b, mark: false })),
      }));
    if (series.length === 0) continue;
    const svg = renderXYChart({
      name: `backlog ${link}`,
      title: `Backlog over time: ${link}`,
      subtitle: 'largest number of commands due but not yet sent, per time bucket',
      x: { label: 'time since the schedule started (s)', scale: 'linear', zero: true, format: (v) => String(Math.round(v * 100) / 100) },
      // Whole commands: a small backlog's 1-2-5 ticks fall on halves, which fmtCount printed as 0, 1, 1, 2, 2, 3.
      y: { label: 'commands waiting', scale: 'linear', zero: true, format: fmtCount, ticks: wholeTicks(Math.max(...rows.map((r) => r.backlog.peak))) },
      series,
      attrs: `data-link="${esc(link)}"`,
    });
    charts.push({ name: `backlog ${link}`, svg, seriesCount: series.length, caption: `A backlog that climbs until the schedule ends means ${link} (or the driver) could not keep up.` });
  }
  return charts;
}

/** 1-2-5 ticks from 0 past `peak` (the axis keeps those within its domain), whole numbers only. */
function wholeTicks(peak: number): Tick[] {
  return linearTicks(0, Math.max(1, Math.ceil(peak * 1.25))).filter((t) => Number.isInteger(t.value));
}
