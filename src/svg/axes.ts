/**
 * Value axes with grid lines, tick labels and an axis title that carries the unit. Ticks come from
 * the 1-2-5 helpers unless a chart brings its own (the percentile axis does).
 */
import { esc, px } from './escape.js';
import { textWidthPx } from './frame.js';
import { linearTicks, logTicks, makeScale, niceLinearDomain, niceLogDomain, type Scale, type ScaleKind, type Tick } from './scale.js';

export interface AxisSpec {
  /** Axis title with its unit, e.g. "median time per sample (ms)". */
  label: string;
  scale: ScaleKind;
  /** Fixed domain; otherwise a nice domain around the data. */
  domain?: [number, number];
  /** Own ticks (e.g. percentiles); otherwise 1-2-5 ticks. */
  ticks?: Tick[];
  format?: (v: number) => string;
  /** Linear axes: stretch the domain to include 0. */
  zero?: boolean;
}

export interface PlotRect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Values that can be drawn on this axis (log axes drop zero and negatives). */
export function drawable(kind: ScaleKind, v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && (kind === 'linear' || v > 0);
}

export function axisDomain(spec: AxisSpec, values: number[]): [number, number] {
  if (spec.domain) return spec.domain;
  const vs = values.filter((v) => drawable(spec.scale, v));
  if (spec.zero && spec.scale === 'linear') vs.push(0);
  if (vs.length === 0) return spec.scale === 'log' ? [1, 10] : [0, 1];
  const min = Math.min(...vs);
  const max = Math.max(...vs);
  return spec.scale === 'log' ? niceLogDomain(min, max) : niceLinearDomain(min, max);
}

export function axisTicks(spec: AxisSpec, domain: [number, number], target = 6): Tick[] {
  if (spec.ticks) return spec.ticks.filter((t) => t.value >= domain[0] - 1e-9 && t.value <= domain[1] + 1e-9);
  return spec.scale === 'log' ? logTicks(domain[0], domain[1]) : linearTicks(domain[0], domain[1], target);
}

/** Default tick text: plain numbers, k/M above ten thousand, no float noise. */
export function defaultFormat(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  return String(Number(v.toPrecision(4)));
}

/** Width the y tick labels need, so the plot starts right of them. */
export function yLabelWidth(spec: AxisSpec, ticks: Tick[]): number {
  const f = spec.format ?? defaultFormat;
  return Math.max(0, ...ticks.filter((t) => t.label).map((t) => textWidthPx(f(t.value), 11)));
}

/** Inset so markers at the domain's edges are not cut by the plot's clip. */
export const EDGE_INSET = 8;

export function xScaleFor(spec: AxisSpec, domain: [number, number], r: PlotRect): Scale {
  return makeScale(spec.scale, domain, [r.x0 + EDGE_INSET, r.x1 - EDGE_INSET]);
}

export function yScaleFor(spec: AxisSpec, domain: [number, number], r: PlotRect): Scale {
  return makeScale(spec.scale, domain, [r.y1 - EDGE_INSET, r.y0 + EDGE_INSET]);
}

export function xAxisSvg(spec: AxisSpec, scale: Scale, ticks: Tick[], r: PlotRect): string {
  const f = spec.format ?? defaultFormat;
  const parts: string[] = [];
  let lastRight = -Infinity;
  for (const t of ticks) {
    const x = scale.map(t.value);
    parts.push(gridLine(x, r.y0, x, r.y1, t.label));
    if (!t.label) continue;
    const text = f(t.value);
    const half = textWidthPx(text, 11) / 2;
    // Drop a label that would touch its left neighbour rather than overprint it.
    if (x - half < lastRight + 4) continue;
    lastRight = x + half;
    parts.push(`<line x1="${px(x)}" y1="${px(r.y1)}" x2="${px(x)}" y2="${px(r.y1 + 4)}" stroke="#333"/>`);
    parts.push(`<text x="${px(x)}" y="${px(r.y1 + 17)}" text-anchor="middle" font-size="11" fill="#333">${esc(text)}</text>`);
  }
  parts.push(`<line x1="${px(r.x0)}" y1="${px(r.y1)}" x2="${px(r.x1)}" y2="${px(r.y1)}" stroke="#333"/>`);
  parts.push(
    `<text x="${px((r.x0 + r.x1) / 2)}" y="${px(r.y1 + 36)}" text-anchor="middle" fill="#222">${esc(spec.label)}</text>`,
  );
  return `<g class="axis x-axis">${parts.join('')}</g>`;
}

export function yAxisSvg(spec: AxisSpec, scale: Scale, ticks: Tick[], r: PlotRect): string {
  const f = spec.format ?? defaultFormat;
  const parts: string[] = [];
  let lastTop = Infinity;
  for (const t of ticks) {
    const y = scale.map(t.value);
    parts.push(gridLine(r.x0, y, r.x1, y, t.label));
    if (!t.label) continue;
    if (y + 6 > lastTop) continue;
    lastTop = y - 6;
    parts.push(`<line x1="${px(r.x0 - 4)}" y1="${px(y)}" x2="${px(r.x0)}" y2="${px(y)}" stroke="#333"/>`);
    parts.push(`<text x="${px(r.x0 - 7)}" y="${px(y + 4)}" text-anchor="end" font-size="11" fill="#333">${esc(f(t.value))}</text>`);
  }
  parts.push(`<line x1="${px(r.x0)}" y1="${px(r.y0)}" x2="${px(r.x0)}" y2="${px(r.y1)}" stroke="#333"/>`);
  const cy = (r.y0 + r.y1) / 2;
  parts.push(
    `<text transform="translate(18 ${px(cy)}) rotate(-90)" text-anchor="middle" fill="#222">${esc(spec.label)}</text>`,
  );
  return `<g class="axis y-axis">${parts.join('')}</g>`;
}

function gridLine(x1: number, y1: number, x2: number, y2: number, major: boolean): string {
  return `<line x1="${px(x1)}" y1="${px(y1)}" x2="${px(x2)}" y2="${px(y2)}" stroke="${major ? '#d9d9d9' : '#f0f0f0'}"/>`;
}
