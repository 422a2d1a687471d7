/**
 * Calibration: configured RTT against the RTT the client measured on top of direct, p50 with the
 * p50-p99 band, and the y = x line a perfect delay would sit on.
 */
import type { CalibrateReport, CalibrateRow } from '../../results/types.js';
import { fmtUsLabel } from '../../format.js';
import { seriesStyle } from '../../svg/style.js';
import { renderXYChart, type HLine, type XYSeries } from '../../svg/xy-chart.js';
import type { Chart } from './chart.js';

type Plotted = CalibrateRow & { configuredRttUs: number; addedP50Us: number };

export function addedRttChart(report: CalibrateReport): Chart | null {
  // A log axis cannot show configured 0 (proxy 0) or direct: those become a reference line.
  const rows = report.rows
    .filter((r): r is Plotted => r.configuredRttUs !== null && r.configuredRttUs > 0 && r.addedP50Us !== null && r.addedP50Us > 0)
    .sort((a, b) => a.configuredRttUs - b.configuredRttUs);
  if (rows.length === 0) return null;
  const p50 = seriesStyle(0);
  const p99 = seriesStyle(1);
  const lo = Math.min(...rows.map((r) => r.configuredRttUs));
  const hi = Math.max(...rows.map((r) => r.configuredRttUs));
  const series: XYSeries[] = [
    {
      label: 'ideal: added = configured',
      style: { color: '#000000', dash: '1.5 3', marker: 'none', filled: false, strokeWidth: 1.5 },
      points: [
        { x: lo, y: lo, mark: false },
        { x: hi, y: hi, mark: false },
      ],
    },
    {
      label: 'added p50',
      style: p50,
      points: rows.map((r) => ({ x: r.configuredRttUs, y: r.addedP50Us })),
    },
  ];
  const withP99 = rows.filter((r) => r.addedP99Us !== null && r.addedP99Us > 0);
  if (withP99.length > 0) {
    series.push({
      label: 'added p99 (band from p50)',
      style: p99,
      points: withP99.map((r) => ({ x: r.configuredRttUs, y: r.addedP99Us as number })),
      band: withP99.map((r) => ({ x: r.configuredRttUs, lo: r.addedP50Us, hi: r.addedP99Us as number })),
    });
  }
  const zero = report.rows.find((r) => r.configuredRttUs === 0 && r.addedP50Us !== null && r.addedP50Us > 0);
  const hlines: HLine[] = zero ? [{ y: zero.addedP50Us as number, label: `proxy's own hop (${zero.label}): ${fmtUsLabel(zero.addedP50Us as number)}` }] : [];
  const svg = renderXYChart({
    name: 'calibrate-added-rtt',
    title: 'Configured vs measured added RTT',
    subtitle: 'added = PING round trip through the proxy minus direct; log-log',
    x: { label: 'configured RTT', scale: 'log', format: fmtUsLabel },
    y: { label: 'measured added RTT', scale: 'log', format: fmtUsLabel },
    series,
    hlines,
  });
  return {
    name: 'calibrate-added-rtt',
    svg,
    seriesCount: series.length,
    caption:
      'Points on the dotted diagonal mean the proxy adds exactly what was asked. Below a few hundred microseconds ' +
      "the proxy's own hop (dashed line) sets a floor.",
  };
}
