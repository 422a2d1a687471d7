/**
 * Latency by percentile, HdrHistogram style: a series per curve, x = log10(1 / (1 - p)). The
 * report draws stored histograms with it, the dashboard its live window.
 */
import { fmtUsLabel } from '../format.js';
import { percentileLabel, percentileTicks, type PercentilePoint } from './percentile-curve.js';
import { seriesStyle, type SeriesStyle } from './style.js';
import { renderXYChart, type XYSeries } from './xy-chart.js';

export interface PercentileCurve {
  label: string;
  styleIndex: number;
  /** Overrides the style of styleIndex (a dotted twin of another curve). */
  style?: SeriesStyle;
  /** Null or empty: the curve is left out. */
  points: PercentilePoint[] | null;
}

export interface PercentileChartSpec {
  name: string;
  title: string;
  subtitle: string;
  yLabel: string;
  curves: PercentileCurve[];
  /** Extra attributes for the <svg> element, already escaped. */
  attrs?: string;
  width?: number;
  plotHeight?: number;
}

/** The chart, or null when no curve has a point. */
export function renderPercentileChart(spec: PercentileChartSpec): { svg: string; seriesCount: number } | null {
  const series: XYSeries[] = [];
  let xMax = 0;
  for (const c of spec.curves) {
    const points = c.points;
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
    name: spec.name,
    title: spec.title,
    subtitle: spec.subtitle,
    x: { label: 'percentile (log scale of 1 / (1 - p); last point = max)', scale: 'linear', domain: [0, top], ticks: percentileTicks(top), format: percentileLabel },
    y: { label: spec.yLabel, scale: 'log', format: fmtUsLabel },
    series,
    attrs: spec.attrs,
    width: spec.width,
    plotHeight: spec.plotHeight,
  });
  return { svg, seriesCount: series.length };
}
