/**
 * The one definition of median, quantile and spread over raw samples (each sorts a copy; 0 for none).
 *
 * median: the middle value; for an even count, the mean of the two middle values (the standard
 * definition, so [1, 2, 3, 4] -> 2.5). quantile: nearest rank, no interpolation (a value that was
 * measured), used for p50/p99 columns next to each other.
 */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The q-quantile (0..1) by nearest rank: the value at floor(q * n) of the sorted samples. */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

/** Median, min and max of repeated measurements: what benchmarks report. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** The spread of `xs`, each figure rounded to `digits` decimals when given. */
export function spread(xs: readonly number[], digits?: number): Spread {
  const f = digits === undefined ? 1 : 10 ** digits;
  const r = (x: number): number => (digits === undefined ? x : Math.round(x * f) / f);
  return { median: r(median(xs)), min: r(xs.length ? Math.min(...xs) : 0), max: r(xs.length ? Math.max(...xs) : 0) };
}
