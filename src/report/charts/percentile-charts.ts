/**
 * Latency by percentile, HdrHistogram style, from the stored histograms: one chart per link for
 * bench (a series per configuration) and one for calibrate (a series per row).
 */
import type { BenchReport, CalibrateReport } from '../../results/types.js';
import { fmtUsLabel } from '../../format.js';
import { percentileCurve, percentileLabel, percentileTicks } from '../histogram.js';
import { ambiguousWorkloads, compareConfig, configLabel, groupByLink, isOk } from '../order.js';
import { esc } from '../svg/escape.js';
import { seriesStyle, type SeriesStyle } from '../svg/style.js';
import { renderXYChart, type XYSeries } from '../svg/xy-chart.js';
import { linkLabel } from './batch-charts.js';
import type { Chart } from './chart.js';

export interface Curve {
  label: string;
  styleIndex: number;
  /** Overrides the style of styleIndex (a dotted twin of another curve). */
  style?: SeriesStyle;
  base64: string;
}

export function percentileChart(name: string, title: string, subtitle: string, yLabel: string, curves: Curve[], attrs?: string): Chart | null {
  const series: XYSeries[] = [];
  let xMax = 0;
  for (const c of curves) {
    const points = percentileCurve(c.base64);
    if (!points || points.length === 0) continue;
    xMax = Math.max(xMax, points[points.length - 1]!.x);
    // Markers only on whole x (0%, 90%, 99% ...) and the max, or the curves drown in them.
    const marked = points.map((p, i) => ({
      x: p.x,
      y: p.us,
      mark: Math.abs(p.x - Math.round(p.x)) < 1e-9 || i === points.length - 1,
    }));
    series.push({ label: c.label, style: c.style ?? seriesStyle(c.styleIndex), points: marked });
  }
  if (series.length === 0) return null;
  const top = Math.max(1, Math.ceil(xMax - 1e-9));
  const svg = renderXYChart({
    name,
    title,
    subtitle,
    x: { label: 'percentile (log scale of 1 / (1 - p); last point = max)', scale: 'linear', domain: [0, top], ticks: percentileTicks(top), format: percentileLabel },
    y: { label: yLabel, scale: 'log', format: fmtUsLabel },
    series,
    attrs,
  });
  return { name, svg, seriesCount: series.length, caption: '' };
}

/** One chart per link; a configuration keeps its colour and marker across links. */
export function benchPercentileCharts(report: BenchReport): Chart[] {
  const ambiguous = ambiguousWorkloads(report.results);
  const labels = [...new Set([...report.results].sort(compareConfig).map((r) => configLabel(r, ambiguous)))];
  const charts: Chart[] = [];
  for (const g of groupByLink(report.results)) {
    const curves = g.results
      .filter((r) => isOk(r) && r.histogram)
      .map((r) => {
        const label = configLabel(r, ambiguous);
        return { label, styleIndex: labels.indexOf(label), base64: r.histogram };
      });
    const chart = percentileChart(
      `percentiles ${g.link}`,
      `Latency per wait by percentile: ${linkLabel(g)}`,
      'one wait = one batch, from its first command sent to its last reply read',
      'latency per wait',
      curves,
      `data-link="${esc(g.link)}"`,
    );
    if (chart) {
      charts.push({
        ...chart,
        caption:
          `Every wait on ${g.link}, from the median (left) to the worst (right end). ` +
          'Flat lines mean steady waits; a rising right end is the tail a user would feel.',
      });
    }
  }
  return charts;
}

export function calibratePercentileChart(report: CalibrateReport): Chart | null {
  const chart = percentileChart(
    'calibrate-percentiles',
    'PING round trip by percentile, per configured delay',
    'measured by the client through the proxy (direct: no proxy)',
    'PING round trip',
    report.rows.map((r, i) => ({ label: r.label, styleIndex: i, base64: r.histogram })),
  );
  return chart && { ...chart, caption: 'Each curve should sit at its configured RTT plus the direct round trip, flat up to a high percentile.' };
}
