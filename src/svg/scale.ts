/**
 * Linear and log scales with "nice" 1-2-5 domains and ticks. A scale maps a data value to a
 * pixel; ticks say which values get a grid line and which of those get a label.
 */

export type ScaleKind = 'linear' | 'log';

export interface Tick {
  value: number;
  /** Labelled (major) tick; unlabelled ones draw only a faint grid line. */
  label: boolean;
}

export interface Scale {
  kind: ScaleKind;
  domain: [number, number];
  range: [number, number];
  map(v: number): number;
}

export function makeScale(kind: ScaleKind, domain: [number, number], range: [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const f = kind === 'log' ? Math.log10 : (v: number) => v;
  const f0 = f(d0);
  const span = f(d1) - f0 || 1;
  return { kind, domain, range, map: (v) => r0 + ((f(v) - f0) / span) * (r1 - r0) };
}

/** The 1-2-5 step nearest to span / target: 0.1, 0.2, 0.5, 1, 2, 5, 10 ... */
export function niceStep(span: number, target: number): number {
  if (!(span > 0) || !(target > 0)) return 1;
  const rough = span / target;
  const mag = 10 ** Math.floor(Math.log10(rough));
  const norm = rough / mag;
  const mult = norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10;
  return mult * mag;
}

/** Extends [min, max] outward to multiples of a 1-2-5 step; a flat range gets some room. */
export function niceLinearDomain(min: number, max: number, target = 5): [number, number] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (min === max) return min === 0 ? [0, 1] : niceLinearDomain(Math.min(0, min), Math.max(0, max), target);
  const step = niceStep(max - min, target);
  return [round(Math.floor(min / step) * step, step), round(Math.ceil(max / step) * step, step)];
}

export function linearTicks(min: number, max: number, target = 5): Tick[] {
  const step = niceStep(max - min, target);
  const ticks: Tick[] = [];
  for (let i = Math.ceil(min / step - 1e-9); i * step <= max + step * 1e-9; i++) {
    ticks.push({ value: round(i * step, step), label: true });
  }
  return ticks;
}

const ONE_TWO_FIVE = [1, 2, 5];

/** Largest 1-2-5 value <= v (v > 0). */
export function floor125(v: number): number {
  const mag = 10 ** Math.floor(Math.log10(v) + 1e-12);
  const m = [...ONE_TWO_FIVE].reverse().find((k) => k * mag <= v * (1 + 1e-9)) ?? 1;
  return round(m * mag, mag);
}

/** Smallest 1-2-5 value >= v (v > 0). */
export function ceil125(v: number): number {
  const mag = 10 ** Math.floor(Math.log10(v) - 1e-12);
  const m = [...ONE_TWO_FIVE, 10].find((k) => k * mag >= v * (1 - 1e-9)) ?? 10;
  return round(m * mag, mag);
}

/** Log domain snapped outward to 1-2-5 values; non-positive or missing data gets [1, 10]. */
export function niceLogDomain(min: number, max: number): [number, number] {
  if (!(min > 0) || !(max > 0) || !Number.isFinite(min) || !Number.isFinite(max)) return [1, 10];
  const lo = floor125(min);
  let hi = ceil125(max);
  if (hi <= lo) hi = ceil125(lo * 1.5);
  return [lo, hi];
}

/**
 * 1-2-5 ticks per decade. Up to three decades every tick is labelled; beyond that only powers of
 * ten are (2 and 5 keep their grid line), and beyond eight decades every other power of ten, so
 * labels never collide.
 */
export function logTicks(min: number, max: number): Tick[] {
  if (!(min > 0) || !(max > min)) return [];
  const decades = Math.log10(max / min);
  const ticks: Tick[] = [];
  for (let e = Math.floor(Math.log10(min)) - 1; e <= Math.ceil(Math.log10(max)); e++) {
    for (const k of ONE_TWO_FIVE) {
      const value = round(k * 10 ** e, 10 ** e);
      if (value < min * (1 - 1e-9) || value > max * (1 + 1e-9)) continue;
      const label = decades <= 3 ? true : k === 1 && (decades <= 8 || e % 2 === 0);
      ticks.push({ value, label });
    }
  }
  return ticks;
}

/** Removes float noise like 0.30000000000000004 relative to the step that produced it. */
function round(v: number, step: number): number {
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 2);
  return Number(v.toFixed(Math.min(digits, 15)));
}
