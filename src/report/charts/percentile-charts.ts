/**
 * Latency by percentile, HdrHistogram style, from the stored histograms: one chart per link for
 * bench (a series per configuration) and one for calibrate (a series per row).
 */
import { isOk, type BenchReport, type CalibrateReport } from '../../results/types.js';
import { percentileCurve } from '../../svg/percentile-curve.js';
import { renderPercentileChart, type PercentileCurve } from '../../svg/percentile-chart.js';
import { ambiguousWorkloads, compareConfig, configLabel, groupByLink } from '../order.js';
import { esc } from '../../svg/escape.js';
import { linkLabel } from './batch-charts.js';
import type { Chart } from './chart.js';

export interface Curve extends Omit<PercentileCurve, 'points'> {
  /** A stored histogram (HdrHistogram compressed base64). */
  base64: string;
}

export function percentileChart(name: string, title: string, subtitle: string, yLabel: string, curves: Curve[], attrs?: string): Chart | null {
  const drawn = renderPercentileChart({
    name,
    title,
    subtitle,
    yLabel,
    curves: curves.map(({ base64, ...c }) => ({ ...c, points: percentileCurve(base64) })),
    attrs,
  });
  return drawn && { name, ...drawn, caption: '' };
}

/** One chart per link; a configuration keeps its colour and marker across links. */
export function benchPercentileCharts(report: BenchReport): Chart[] {
  const ambiguous = ambiguousWorkloads(report.results);
  const labels = [...new Set([...report.results].sort(compareConfig).map((r) => configLabel(r, ambiguous)))];
  const charts: Chart[] = [];
  for (const g of groupByLink(report.results)) {
    const curves = g.results
      .filter(isOk)
      .filter((r) => r.histogram !== '')
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
