/**
 * What every chart shares: the <svg> envelope (title, data-chart, fonts), text width estimates
 * for layout, and the legend, which wraps into rows under the plot so long labels never collide.
 */
import { esc, idPart, px, shortHash } from './escape.js';
import { markerSvg, type SeriesStyle } from './style.js';

/** System fonts only: the report must render offline with no web font. */
export const FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

/**
 * Width of `text` at `fontSize`, estimated (a pure function cannot measure). 0.6 em per
 * character is a little wide for most sans fonts, which errs on the side of no overlap.
 */
export function textWidthPx(text: string, fontSize: number): number {
  return [...text].length * fontSize * 0.6;
}

export interface SvgDocument {
  name: string;
  title: string;
  subtitle?: string;
  width: number;
  height: number;
  body: string;
  /** Extra attributes on <svg>, already escaped (e.g. data-link). */
  attrs?: string;
}

export function svgDocument(doc: SvgDocument): string {
  const titleId = `title-${idPart(doc.name)}-${shortHash(doc.name)}`;
  const head =
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="${esc(doc.name)}"` +
    `${doc.attrs ? ` ${doc.attrs}` : ''} viewBox="0 0 ${px(doc.width)} ${px(doc.height)}"` +
    ` width="${px(doc.width)}" height="${px(doc.height)}" role="img" aria-labelledby="${titleId}"` +
    ` font-family="${esc(FONT_FAMILY)}" font-size="12">`;
  const texts = [
    `<title id="${titleId}">${esc(doc.title)}${doc.subtitle ? ` - ${esc(doc.subtitle)}` : ''}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="16" y="22" font-size="15" font-weight="600" fill="#111">${esc(doc.title)}</text>`,
    doc.subtitle ? `<text x="16" y="40" fill="#555">${esc(doc.subtitle)}</text>` : '',
  ];
  return `${head}\n${texts.filter(Boolean).join('\n')}\n${doc.body}\n</svg>`;
}

/** Top of the plot area, below the title and optional subtitle. */
export function plotTop(subtitle: string | undefined): number {
  return subtitle ? 58 : 40;
}

export interface LegendItem {
  label: string;
  style: SeriesStyle;
  /** How the sample is drawn: a line with its marker, or a filled swatch for bars and bands. */
  sample: 'line' | 'swatch' | 'tick';
  /** Fill for swatches (a pattern url for hatched bars). */
  fill?: string;
}

const LEGEND_ROW = 20;
const SAMPLE_W = 30;

/** Legend wrapped into rows across [x0, x1], starting at y; returns its svg and height. */
export function renderLegend(items: LegendItem[], x0: number, x1: number, y: number): { svg: string; height: number } {
  if (items.length === 0) return { svg: '', height: 0 };
  const parts: string[] = [];
  let x = x0;
  let row = 0;
  for (const item of items) {
    const w = SAMPLE_W + 6 + textWidthPx(item.label, 12) + 18;
    if (x > x0 && x + w > x1) {
      row += 1;
      x = x0;
    }
    const cy = y + row * LEGEND_ROW + LEGEND_ROW / 2;
    parts.push(`<g class="legend-item">${legendSample(item, x, cy)}` +
      `<text x="${px(x + SAMPLE_W + 6)}" y="${px(cy + 4)}" fill="#222">${esc(item.label)}</text></g>`);
    x += w;
  }
  return { svg: `<g class="legend">${parts.join('')}</g>`, height: (row + 1) * LEGEND_ROW };
}

function legendSample(item: LegendItem, x: number, cy: number): string {
  const s = item.style;
  if (item.sample === 'swatch') {
    return `<rect x="${px(x + 4)}" y="${px(cy - 6)}" width="${SAMPLE_W - 8}" height="12" fill="${item.fill ?? s.color}" stroke="${s.color}"/>`;
  }
  if (item.sample === 'tick') {
    return `<line x1="${px(x + SAMPLE_W / 2)}" y1="${px(cy - 7)}" x2="${px(x + SAMPLE_W / 2)}" y2="${px(cy + 7)}" stroke="${s.color}" stroke-width="2"/>`;
  }
  const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
  return (
    `<line x1="${px(x)}" y1="${px(cy)}" x2="${px(x + SAMPLE_W)}" y2="${px(cy)}" stroke="${s.color}" stroke-width="${s.strokeWidth}"${dash}/>` +
    markerSvg(s, x + SAMPLE_W / 2, cy)
  );
}
