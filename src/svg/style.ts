/**
 * How series look: Okabe-Ito colours (safe for the common colour-vision deficiencies), and for
 * grey print a marker shape and a dash pattern per series as well, so no series depends on hue.
 */
import { px } from './escape.js';

export type MarkerShape = 'circle' | 'square' | 'triangle' | 'diamond' | 'triangle-down' | 'cross' | 'plus' | 'star';

export interface SeriesStyle {
  color: string;
  /** stroke-dasharray; '' for solid. */
  dash: string;
  marker: MarkerShape | 'none';
  /** Filled or hollow markers: a second cue after the shape. */
  filled: boolean;
  strokeWidth: number;
}

/**
 * Okabe & Ito (2008), with their yellow swapped for a mid grey: thin yellow lines and markers all
 * but vanish on white. Black is kept for references (ideal lines, the batch arithmetic).
 */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#8C8C8C'];

const MARKERS: MarkerShape[] = ['circle', 'square', 'triangle', 'diamond', 'triangle-down', 'cross', 'plus', 'star'];

/** Measured series patterns. The dotted '1.5 3' is kept back for models and references. */
const DASHES = ['', '7 3', '3 2', '9 3 2 3', '5 2 1 2 1 2'];

/** Thin dotted line in the series colour: a model, an arithmetic prediction, an ideal. */
export const REFERENCE_DASH = '1.5 3';

export function seriesStyle(index: number): SeriesStyle {
  const i = Math.max(0, index);
  return {
    color: PALETTE[i % PALETTE.length]!,
    marker: MARKERS[i % MARKERS.length]!,
    dash: DASHES[i % DASHES.length]!,
    filled: Math.floor(i / MARKERS.length) % 2 === 0,
    strokeWidth: 2,
  };
}

/** Same colour as `base`, drawn as a thin dotted reference without markers. */
export function referenceStyle(base: SeriesStyle | string): SeriesStyle {
  const color = typeof base === 'string' ? base : base.color;
  return { color, dash: REFERENCE_DASH, marker: 'none', filled: false, strokeWidth: 1.5 };
}

/** SVG element for a marker centred at (x, y); `r` is the half-size in pixels. */
export function markerSvg(style: SeriesStyle, x: number, y: number, r = 4): string {
  if (style.marker === 'none') return '';
  const fill = style.filled ? style.color : '#fff';
  const common = `fill="${fill}" stroke="${style.color}" stroke-width="1.5"`;
  const X = (dx: number): string => px(x + dx);
  const Y = (dy: number): string => px(y + dy);
  switch (style.marker) {
    case 'circle':
      return `<circle cx="${px(x)}" cy="${px(y)}" r="${px(r)}" ${common}/>`;
    case 'square':
      return `<rect x="${X(-r * 0.85)}" y="${Y(-r * 0.85)}" width="${px(r * 1.7)}" height="${px(r * 1.7)}" ${common}/>`;
    case 'triangle':
      return `<path d="M${X(0)} ${Y(-r * 1.1)}L${X(r)} ${Y(r * 0.8)}L${X(-r)} ${Y(r * 0.8)}Z" ${common}/>`;
    case 'triangle-down':
      return `<path d="M${X(0)} ${Y(r * 1.1)}L${X(r)} ${Y(-r * 0.8)}L${X(-r)} ${Y(-r * 0.8)}Z" ${common}/>`;
    case 'diamond':
      return `<path d="M${X(0)} ${Y(-r * 1.2)}L${X(r)} ${Y(0)}L${X(0)} ${Y(r * 1.2)}L${X(-r)} ${Y(0)}Z" ${common}/>`;
    case 'cross':
      return `<path d="M${X(-r)} ${Y(-r)}L${X(r)} ${Y(r)}M${X(-r)} ${Y(r)}L${X(r)} ${Y(-r)}" fill="none" stroke="${style.color}" stroke-width="2"/>`;
    case 'plus':
      return `<path d="M${X(-r * 1.1)} ${Y(0)}L${X(r * 1.1)} ${Y(0)}M${X(0)} ${Y(-r * 1.1)}L${X(0)} ${Y(r * 1.1)}" fill="none" stroke="${style.color}" stroke-width="2"/>`;
    case 'star': {
      const pts: string[] = [];
      for (let k = 0; k < 10; k++) {
        const a = (Math.PI / 5) * k - Math.PI / 2;
        const rr = k % 2 === 0 ? r * 1.25 : r * 0.55;
        pts.push(`${X(Math.cos(a) * rr)} ${Y(Math.sin(a) * rr)}`);
      }
      return `<path d="M${pts.join('L')}Z" ${common}/>`;
    }
  }
}
