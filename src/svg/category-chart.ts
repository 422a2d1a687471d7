/**
 * A horizontal category chart: one row per category (labels read left to right however long),
 * values along x as grouped bars, dots or tick marks. Used for bytes per direction (bars) and for
 * observed round trips against the ceil(N/B) arithmetic (dots and ticks).
 */
import { axisDomain, axisTicks, defaultFormat, drawable, xAxisSvg, xScaleFor, type AxisSpec, type PlotRect } from './axes.js';
import { esc, idPart, px, shortHash } from './escape.js';
import { plotTop, renderLegend, svgDocument, textWidthPx, type LegendItem } from './frame.js';
import { markerSvg, type SeriesStyle } from './style.js';

export interface CategorySeries {
  label: string;
  style: SeriesStyle;
  kind: 'bar' | 'dot' | 'tick';
  /** One value per category; null where the series has none. */
  values: Array<number | null>;
  /** Bars: diagonal hatching on top of the colour, so two bar series differ in grey print. */
  hatch?: boolean;
  /** Bars: print each value at the bar's end (with the axis format). @default false */
  valueLabels?: boolean;
}

export interface CategoryChartSpec {
  name: string;
  title: string;
  subtitle?: string;
  categories: string[];
  x: AxisSpec;
  series: CategorySeries[];
  attrs?: string;
  width?: number;
}

export function renderCategoryChart(spec: CategoryChartSpec): string {
  const width = spec.width ?? 720;
  const bars = spec.series.filter((s) => s.kind === 'bar');
  const dotCount = spec.series.filter((s) => s.kind === 'dot').length;
  // Bars stack inside a row; dots sit on their own line inside it so equal values stay visible.
  const rowH = bars.length > 0 ? Math.max(22, bars.length * 10 + 8) : Math.max(22, dotCount * 9 + 8);
  const labelW = Math.max(40, ...spec.categories.map((c) => textWidthPx(c, 12)));
  const top = plotTop(spec.subtitle);
  const rows = Math.max(1, spec.categories.length);
  const rect: PlotRect = { x0: 24 + labelW, y0: top, x1: width - 20, y1: top + rows * rowH };
  const xDomain = axisDomain({ ...spec.x, zero: spec.x.zero ?? bars.length > 0 }, spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
  const xScale = xScaleFor(spec.x, xDomain, rect);
  const xTicks = axisTicks(spec.x, xDomain, Math.max(3, Math.floor((rect.x1 - rect.x0) / 90)));
  const format = spec.x.format ?? defaultFormat;
  const base = spec.x.scale === 'log' ? xDomain[0] : Math.max(xDomain[0], 0);
  const uid = `${idPart(spec.name)}-${shortHash(spec.name)}`;

  const body: string[] = [xAxisSvg(spec.x, xScale, xTicks, rect)];
  const defs: string[] = [];
  spec.categories.forEach((c, i) => {
    const cy = rect.y0 + i * rowH + rowH / 2;
    body.push(`<text x="${px(rect.x0 - 8)}" y="${px(cy + 4)}" text-anchor="end" fill="#222">${esc(c)}</text>`);
    if (i > 0) body.push(`<line x1="${px(rect.x0)}" y1="${px(rect.y0 + i * rowH)}" x2="${px(rect.x1)}" y2="${px(rect.y0 + i * rowH)}" stroke="#f0f0f0"/>`);
  });
  body.push(`<line x1="${px(rect.x0)}" y1="${px(rect.y0)}" x2="${px(rect.x0)}" y2="${px(rect.y1)}" stroke="#333"/>`);
  if (spec.categories.length === 0) {
    body.push(`<text x="${px((rect.x0 + rect.x1) / 2)}" y="${px(rect.y0 + rowH / 2 + 4)}" text-anchor="middle" fill="#777">no data</text>`);
  }

  const legendItems: LegendItem[] = [];
  const underlay: string[] = [];
  const overlay: string[] = [];
  let barIndex = 0;
  const dots = spec.series.filter((s) => s.kind === 'dot');
  for (const s of spec.series) {
    const parts: string[] = [];
    let fill = s.style.color;
    if (s.kind === 'bar' && s.hatch) {
      const pid = `hatch-${uid}-${barIndex}`;
      defs.push(
        `<pattern id="${pid}" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">` +
          `<rect width="6" height="6" fill="${s.style.color}" fill-opacity="0.35"/><line x1="0" y1="0" x2="0" y2="6" stroke="${s.style.color}" stroke-width="2.5"/></pattern>`,
      );
      fill = `url(#${pid})`;
    }
    const bi = barIndex;
    const di = dots.indexOf(s);
    s.values.forEach((v, i) => {
      if (!drawable(spec.x.scale, v)) return;
      const rowTop = rect.y0 + i * rowH;
      const x = xScale.map(v);
      if (s.kind === 'bar') {
        const h = (rowH - 8) / bars.length;
        const y = rowTop + 4 + bi * h;
        const x0 = xScale.map(base);
        parts.push(`<rect x="${px(Math.min(x0, x))}" y="${px(y)}" width="${px(Math.abs(x - x0))}" height="${px(h - 1)}" fill="${fill}" stroke="${s.style.color}" stroke-width="1"/>`);
        // The value at the bar's end: a bar too short to see still says what it is.
        if (s.valueLabels && h >= 8) parts.push(`<text x="${px(Math.max(x0, x) + 4)}" y="${px(y + h / 2 + 3)}" font-size="${Math.min(11, h)}" fill="#333">${esc(format(v))}</text>`);
      } else if (s.kind === 'tick') {
        parts.push(`<line x1="${px(x)}" y1="${px(rowTop + 2)}" x2="${px(x)}" y2="${px(rowTop + rowH - 2)}" stroke="${s.style.color}" stroke-width="1.5"/>`);
      } else {
        // Dots of several series at one value would hide each other: nudge them apart vertically.
        const cy = rowTop + rowH / 2 + (di - (dots.length - 1) / 2) * 9;
        parts.push(markerSvg(s.style, x, cy));
      }
    });
    if (s.kind === 'bar') barIndex += 1;
    // Ticks go under the dots they are compared with; the legend keeps the given order.
    const group = `<g data-series="${esc(s.label)}">${parts.join('')}</g>`;
    if (s.kind === 'tick') underlay.push(group);
    else overlay.push(group);
    legendItems.push(
      s.kind === 'bar'
        ? { label: s.label, style: s.style, sample: 'swatch', fill }
        : s.kind === 'tick'
          ? { label: s.label, style: s.style, sample: 'tick' }
          : { label: s.label, style: { ...s.style, dash: '', strokeWidth: 0 }, sample: 'line' },
    );
  }
  body.push(...underlay, ...overlay);
  const legend = renderLegend(legendItems, rect.x0, width - 16, rect.y1 + 46);
  body.push(legend.svg);
  if (defs.length > 0) body.unshift(`<defs>${defs.join('')}</defs>`);
  const height = rect.y1 + 46 + legend.height + 10;
  return svgDocument({ name: spec.name, title: spec.title, subtitle: spec.subtitle, width, height, body: body.join('\n'), attrs: spec.attrs });
}
