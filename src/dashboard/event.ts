/** One tick of the dashboard: a reading of the proxy into the window, and the event a page gets. */
import { percentileCurveOf } from '../svg/percentile-curve.js';
import { renderPercentileChart } from '../svg/percentile-chart.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { StatsWindow, WindowFigures } from './stats-window.js';
import { nodeBlocks } from '../stats/node-blocks.js';
import type { DashboardEvent, DashboardSource } from './types.js';

/** Busiest commands drawn beside "all" in the chart: more curves than this are hard to tell apart. */
const CHART_COMMANDS = 3;

export function dashboardEvent(source: DashboardSource, window: StatsWindow, atNs: number, atMs: number): DashboardEvent {
  const stats = source.stats();
  const nodes = nodeBlocks(stats);
  const figures = window.add(
    atNs,
    stats.totals,
    (nodes ?? []).map((n) => n.counters),
    source.commandLatency(),
    (nodes ?? []).map((n, i) => n.listen ?? n.upstream ?? String(i)),
  );
  const counts = new Map((stats.toxics ?? []).map((t) => [t.name, t.applications]));
  const event: DashboardEvent = {
    atMs,
    windowMs: figures.windowMs,
    rates: figures.rates,
    commands: figures.commands,
    chartSvg: latencyChart(figures),
    connections: stats.connections,
    link: stats.link,
    toxics: (source.toxics?.() ?? []).map((t) => ({ ...t, applications: counts.get(t.name) ?? 0 })),
  };
  if (stats.timeline) event.linkNow = stats.timeline.delaysUs;
  if (stats.partition) event.partition = stats.partition;
  if (stats.self) event.self = { addedUs: stats.self.addedUs, roundTripAddedUs: stats.self.roundTripAddedUs, lateUs: stats.self.lateUs };
  if (stats.countsOff) event.countsOff = true;
  if (source.enabled) event.enabled = source.enabled();
  if (nodes) event.nodes = nodes.map(({ counters: _counters, ...rest }, i) => ({ ...rest, rates: figures.nodeRates[i]! }));
  return event;
}

function latencyChart(f: WindowFigures): string | null {
  if (f.latency.length === 0) return null;
  const all = new LatencyHistogram();
  for (const c of f.latency) all.add(c.histogram);
  const curves = [
    { label: 'all commands', styleIndex: 0, points: percentileCurveOf(all) },
    ...f.latency.slice(0, CHART_COMMANDS).map((c, i) => ({ label: c.name, styleIndex: i + 1, points: percentileCurveOf(c.histogram) })),
  ];
  const drawn = renderPercentileChart({
    name: 'dashboard-latency',
    title: `Latency by percentile, last ${Math.round(f.windowMs / 1000)} s`,
    subtitle: 'per command, request at the proxy to reply delivered (link included)',
    yLabel: 'latency',
    curves,
    plotHeight: 220,
  });
  return drawn?.svg ?? null;
}
