/**
 * An x/y chart: lines with markers, min-max error bars, shaded bands, horizontal reference lines,
 * a legend. Data in, SVG string out. Each series is one `<g data-series="label">`.
 */
import { axisDomain, axisTicks, drawable, xAxisSvg, xScaleFor, yAxisSvg, yLabelWidth, yScaleFor, type AxisSpec, type PlotRect } from './axes.js';
import { esc, idPart, px, shortHash } from './escape.js';
import { plotTop, renderLegend, svgDocument, type LegendItem } from './frame.js';
import type { Scale } from './scale.js';
import { markerSvg, type SeriesStyle } from './style.js';

export interface XYPoint {
  x: number;
  y: number;
  /** Error bar from lo to hi (e.g. fastest and slowest repetition). */
  lo?: number;
  hi?: number;
  /** Draw a marker at this point. @default true */
  mark?: boolean;
}

export interface XYSeries {
  label: string;
  style: SeriesStyle;
  points: XYPoint[];
  /** Join points with a line. @default true */
  line?: boolean;
  /** Shaded band (e.g. p50 to p99) in the series colour. */
  band?: Array<{ x: number; lo: number; hi: number }>;
}

export interface HLine {
  y: number;
  label: string;
}

export interface XYChartSpec {
  /** data-chart value: how a test or a stylesheet finds this chart. */
  name: string;
  title: string;
  subtitle?: string;
  x: AxisSpec;
  y: AxisSpec;
  series: XYSeries[];
  hlines?: HLine[];
  /** Extra attributes for the <svg> element, already escaped. */
  attrs?: string;
  width?: number;
  plotHeight?: number;
}

export function renderXYChart(spec: XYChartSpec): string {
  const width = spec.width ?? 720;
  const xDomain = axisDomain(spec.x, spec.series.flatMap((s) => [...s.points.map((p) => p.x), ...(s.band ?? []).map((b) => b.x)]));
  const yDomain = axisDomain(spec.y, [
    ...spec.series.flatMap((s) => s.points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y])),
    ...spec.series.flatMap((s) => (s.band ?? []).flatMap((b) => [b.lo, b.hi])),
    ...(spec.hlines ?? []).map((h) => h.y),
  ]);
  const yTicks = axisTicks(spec.y, yDomain, 6);
  const top = plotTop(spec.subtitle);
  const rect: PlotRect = { x0: 34 + yLabelWidth(spec.y, yTicks), y0: top, x1: width - 20, y1: top + (spec.plotHeight ?? 300) };
  const xScale = xScaleFor(spec.x, xDomain, rect);
  const yScale = yScaleFor(spec.y, yDomain, rect);
  const xTicks = axisTicks(spec.x, xDomain, Math.max(3, Math.floor((rect.x1 - rect.x0) / 90)));
  const clipId = `clip-${idPart(spec.name)}-${shortHash(spec.name)}`;

  const body: string[] = [
    `<defs><clipPath id="${clipId}"><rect x="${px(rect.x0)}" y="${px(rect.y0)}" width="${px(rect.x1 - rect.x0)}" height="${px(rect.y1 - rect.y0)}"/></clipPath></defs>`,
    xAxisSvg(spec.x, xScale, xTicks, rect),
    yAxisSvg(spec.y, yScale, yTicks, rect),
  ];
  for (const h of spec.hlines ?? []) body.push(hlineSvg(h, yScale, rect));
  const hasData = spec.series.some((s) => s.points.some((p) => drawable(spec.x.scale, p.x) && drawable(spec.y.scale, p.y)));
  if (!hasData) {
    body.push(`<text x="${px((rect.x0 + rect.x1) / 2)}" y="${px((rect.y0 + rect.y1) / 2)}" text-anchor="middle" fill="#777">no data</text>`);
  }
  const ctx: Ctx = { spec, xScale, yScale };
  body.push(`<g clip-path="url(#${clipId})">${spec.series.map((s) => seriesSvg(s, ctx)).join('\n')}</g>`);

  const items: LegendItem[] = spec.series.map((s) => ({ label: s.label, style: s.style, sample: 'line' }));
  const legend = renderLegend(items, rect.x0, width - 16, rect.y1 + 46);
  body.push(legend.svg);
  const height = rect.y1 + 46 + legend.height + 10;
  return svgDocument({ name: spec.name, title: spec.title, subtitle: spec.subtitle, width, height, body: body.join('\n'), attrs: spec.attrs });
}

interface Ctx {
  spec: XYChartSpec;
  xScale: Scale;
  yScale: Scale;
}

function seriesSvg(s: XYSeries, ctx: Ctx): string {
  const { spec, xScale, yScale } = ctx;
  const okX = (v: number): boolean => drawable(spec.x.scale, v);
  const okY = (v: number | undefined): v is number => drawable(spec.y.scale, v);
  const pts = s.points.filter((p) => okX(p.x) && okY(p.y));
  const st = s.style;
  const parts: string[] = [];

  const band = (s.band ?? []).filter((b) => okX(b.x) && okY(b.lo) && okY(b.hi));
  if (band.length > 1) {
    const upper = band.map((b) => `${px(xScale.map(b.x))} ${px(yScale.map(b.hi))}`);
    const lower = [...band].reverse().map((b) => `${px(xScale.map(b.x))} ${px(yScale.map(b.lo))}`);
    parts.push(`<path class="band" d="M${[...upper, ...lower].join('L')}Z" fill="${st.color}" fill-opacity="0.14" stroke="none"/>`);
  }
  if ((s.line ?? true) && pts.length > 1) {
    const d = pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${px(xScale.map(p.x))} ${px(yScale.map(p.y))}`).join('');
    const dash = st.dash ? ` stroke-dasharray="${st.dash}"` : '';
    parts.push(`<path class="line" d="${d}" fill="none" stroke="${st.color}" stroke-width="${st.strokeWidth}"${dash} stroke-linejoin="round"/>`);
  }
  for (const p of pts) {
    if (!okY(p.lo) || !okY(p.hi) || p.hi <= p.lo) continue;
    const x = xScale.map(p.x);
    const [ya, yb] = [yScale.map(p.lo), yScale.map(p.hi)];
    parts.push(
      `<path class="error-bar" d="M${px(x)} ${px(ya)}L${px(x)} ${px(yb)}M${px(x - 4)} ${px(ya)}L${px(x + 4)} ${px(ya)}M${px(x - 4)} ${px(yb)}L${px(x + 4)} ${px(yb)}" stroke="${st.color}" stroke-width="1.2" fill="none"/>`,
    );
  }
  for (const p of pts) {
    if (p.mark === false) continue;
    parts.push(markerSvg(st, xScale.map(p.x), yScale.map(p.y)));
  }
  return `<g data-series="${esc(s.label)}">${parts.join('')}</g>`;
}

function hlineSvg(h: HLine, yScale: Scale, r: PlotRect): string {
  const y = yScale.map(h.y);
  if (!(y >= r.y0 && y <= r.y1)) return '';
  return (
    `<g class="reference"><line x1="${px(r.x0)}" y1="${px(y)}" x2="${px(r.x1)}" y2="${px(y)}" stroke="#555" stroke-width="1" stroke-dasharray="4 3"/>` +
    `<text x="${px(r.x1 - 4)}" y="${px(y - 4)}" text-anchor="end" font-size="11" fill="#555">${esc(h.label)}</text></g>`
  );
}
