/**
 * Stored histograms (and live ones) (HdrHistogram compressed base64, integer microseconds) turned into the curve
 * HdrHistogram's own plotter draws: value against x = log10(1 / (1 - p)), so 90%, 99%, 99.9% sit
 * one unit apart and the tail gets room.
 */
import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import type { LatencyHistogram } from '../numbers/histogram.js';
import type { Tick } from './scale.js';

export interface PercentilePoint {
  /** log10(1 / (1 - p)); 0 is the minimum, 2 is p99. */
  x: number;
  /** Percentile, 0-100. */
  percentile: number;
  us: number;
}

/** Furthest x drawn: p99.9999. Past 1/count a histogram has nothing more to say anyway. */
const MAX_X = 6;

/** Decodes a stored histogram; null when it is empty, missing or not a histogram. */
export function percentileCurve(base64: string, step = 0.05): PercentilePoint[] | null {
  if (!base64) return null;
  let h;
  try {
    // Pure JS: WebAssembly would need an async init and buys nothing for a few decodes.
    h = decodeFromCompressedBase64(base64, 32, false);
  } catch {
    return null;
  }
  try {
    return samplePercentiles(h.totalCount, (p) => h.getValueAtPercentile(p), h.maxValue, step);
  } finally {
    h.destroy();
  }
}

/** The curve of a live histogram (the dashboard's window); null when it is empty. */
export function percentileCurveOf(h: LatencyHistogram, step = 0.05): PercentilePoint[] | null {
  return samplePercentiles(h.count, (p) => h.valueAtPercentile(p), h.valueAtPercentile(100), step);
}

function samplePercentiles(count: number, valueAt: (percentile: number) => number, maxUs: number, step: number): PercentilePoint[] | null {
  if (!(count > 0)) return null;
  const xMax = Math.min(MAX_X, Math.log10(count));
  const points: PercentilePoint[] = [];
  for (let k = 0; k * step < xMax - 1e-9; k++) {
    const x = round(k * step);
    const percentile = 100 * (1 - 10 ** -x);
    points.push({ x, percentile, us: valueAt(percentile) });
  }
  // The last point is the maximum, placed where the sample count runs out.
  points.push({ x: round(xMax), percentile: 100 * (1 - 10 ** -xMax), us: maxUs });
  return points;
}

/** "0%", "90%", "99%", "99.9%", "99.99%" for x = 0, 1, 2, 3, 4. */
export function percentileLabel(x: number): string {
  const p = 100 * (1 - 10 ** -x);
  const digits = Math.max(0, Math.ceil(x - 1e-9) - 2);
  return `${p.toFixed(digits)}%`;
}

/** One labelled tick per nine-more (0%, 90%, 99% ...) up to xMax. */
export function percentileTicks(xMax: number): Tick[] {
  const ticks: Tick[] = [];
  for (let x = 0; x <= Math.ceil(xMax - 1e-9); x++) ticks.push({ value: x, label: true });
  return ticks;
}

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}
