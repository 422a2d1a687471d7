/**
 * What crossed the wire, as the proxy counted it: observed round trips against the ceil(N/B)
 * arithmetic, and bytes per command in each direction. Direct runs have no proxy and no counts.
 */
import { isOk, type BenchReport, type BenchResult } from '../../results/types.js';
import { fmtBytes } from '../../format.js';
import { ambiguousWorkloads, compareConfig, configLabel, groupByLink } from '../order.js';
import { renderCategoryChart, type CategorySeries } from '../../svg/category-chart.js';
import { seriesStyle } from '../../svg/style.js';
import { linkLabel } from './batch-charts.js';
import type { Chart } from './chart.js';

/** Configuration labels of results that have proxy counts, in table order. */
function categories(report: BenchReport): { labels: string[]; of: (r: BenchResult) => string } {
  const ambiguous = ambiguousWorkloads(report.results);
  const of = (r: BenchResult): string => configLabel(r, ambiguous);
  const counted = report.results.filter((r) => isOk(r) && r.roundTrips !== null).sort(compareConfig);
  return { labels: [...new Set(counted.map(of))], of };
}

export function roundTripsChart(report: BenchReport): Chart | null {
  const { labels, of } = categories(report);
  if (labels.length === 0) return null;
  const series: CategorySeries[] = [];
  const expected: Array<number | null> = labels.map(() => null);
  groupByLink(report.results).forEach((g, i) => {
    if (!g.proxied) return;
    const values: Array<number | null> = labels.map(() => null);
    for (const r of g.results) {
      if (!isOk(r) || r.roundTrips === null) continue;
      const c = labels.indexOf(of(r));
      values[c] = r.roundTrips;
      expected[c] ??= r.waits;
    }
    if (values.some((v) => v !== null)) series.push({ label: linkLabel(g), style: seriesStyle(i), kind: 'dot', values });
  });
  series.push({
    label: 'ceil(N/B) arithmetic',
    style: { ...seriesStyle(6), marker: 'none' },
    kind: 'tick',
    values: expected,
  });
  const svg = renderCategoryChart({
    name: 'round-trips',
    title: 'Round trips per sample: counted by the proxy vs ceil(N/B)',
    subtitle: 'a mark off its tick means the client waited more (or less) often than the batch arithmetic says',
    categories: labels,
    x: { label: 'round trips per sample (log)', scale: 'log' },
    series,
  });
  return {
    name: 'round-trips',
    svg,
    seriesCount: series.length,
    caption:
      'Each dot is the median number of times the client went from nothing outstanding to waiting on Redis; ' +
      'the black tick is what ceil(N / batch) predicts.',
  };
}

export function bytesChart(report: BenchReport): Chart | null {
  const { labels, of } = categories(report);
  // Bytes depend on the commands, not the link: show the first proxied link that counted them.
  const g = groupByLink(report.results).find((x) => x.proxied && x.results.some((r) => isOk(r) && r.bytesUp !== null));
  if (!g || labels.length === 0) return null;
  const up: Array<number | null> = labels.map(() => null);
  const down: Array<number | null> = labels.map(() => null);
  for (const r of g.results) {
    if (!isOk(r) || r.bytesUp === null || r.bytesDown === null || !(r.n > 0)) continue;
    const c = labels.indexOf(of(r));
    if (c < 0) continue;
    up[c] = r.bytesUp / r.n;
    down[c] = r.bytesDown / r.n;
  }
  const series: CategorySeries[] = [
    { label: 'up: client to Redis', style: seriesStyle(0), kind: 'bar', values: up, valueLabels: true },
    { label: 'down: Redis to client', style: seriesStyle(1), kind: 'bar', values: down, hatch: true, valueLabels: true },
  ];
  const svg = renderCategoryChart({
    name: 'bytes',
    title: `Bytes per operation, each direction (${g.link})`,
    subtitle: 'bytes the proxy forwarded per sample / N operations (one MSET of 100 keys = 100 operations)',
    categories: labels,
    x: { label: 'bytes per operation', scale: 'linear', format: (v) => (v >= 1000 ? fmtBytes(v) : String(Number(v.toPrecision(3)))) },
    series,
  });
  return {
    name: 'bytes',
    svg,
    seriesCount: series.length,
    caption:
      'Multi-key commands (MSET, MGET) send one command header per batch instead of one per key, so fewer bytes go up; ' +
      'MSET also gets one +OK back per batch instead of one per key.',
  };
}
