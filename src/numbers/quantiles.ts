/** The q-quantile of raw samples (nearest rank, no interpolation); 0 for none. Sorts a copy. */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}
