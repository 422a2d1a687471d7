import { ConfigError } from '../errors.js';

/** At a configured one-way delay, how many microseconds to take off it. */
export interface CompensationPoint {
  delayUs: number;
  compUs: number;
}

/**
 * What the proxy takes off each one-way delay so a client sees direct + configured.
 * - `{ up, down }`: a constant per direction (the proxy's own hop, measured at start or given);
 * - `{ table }`: a function of the configured delay, measured by `redis-rtt calibrate`. A client
 *   and a Redis that sleep for the whole delay pay a wake-up that grows with it, which a constant
 *   cannot follow (figures: docs/measurements.md).
 */
export type Compensation = { up: number; down: number } | { table: CompensationPoint[] };

export const NO_COMPENSATION: Compensation = { up: 0, down: 0 };

/**
 * Microseconds to take off a direction whose configured delay is `delayUs`: linear between points,
 * flat above the last, and below the first a proportional share of it (a short delay measured at
 * nothing is not wiped out by a longer one's compensation: a slightly slow link beats one faster
 * than asked).
 */
export function compensationAt(c: Compensation, direction: 'up' | 'down', delayUs: number): number {
  if (!('table' in c)) return c[direction];
  const t = c.table;
  if (t.length === 0) return 0;
  const first = t[0]!;
  if (delayUs <= first.delayUs) return first.delayUs === 0 ? first.compUs : (first.compUs * Math.max(0, delayUs)) / first.delayUs;
  for (let i = 1; i < t.length; i++) {
    const b = t[i]!;
    if (delayUs <= b.delayUs) {
      const a = t[i - 1]!;
      return a.compUs + ((b.compUs - a.compUs) * (delayUs - a.delayUs)) / (b.delayUs - a.delayUs);
    }
  }
  return t[t.length - 1]!.compUs;
}

/**
 * Checks a table read from a file or passed by a caller, sorted by delay. Accepts a bare array or
 * anything with a `compensationTable` array (a saved `redis-rtt calibrate --json` result).
 */
export function parseCompensationTable(data: unknown, source: string): { table: CompensationPoint[] } {
  const raw = Array.isArray(data) ? data : (data as { compensationTable?: unknown } | null)?.compensationTable;
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new ConfigError('--compensate', source, 'a calibrate --json result with a compensationTable, or an array of {delayUs, compUs}');
  }
  const table = raw.map((p: unknown, i) => {
    const { delayUs, compUs } = (p ?? {}) as Record<string, unknown>;
    if (typeof delayUs !== 'number' || typeof compUs !== 'number' || !(delayUs >= 0) || !(compUs >= 0) || !Number.isFinite(delayUs + compUs)) {
      throw new ConfigError('--compensate', `${source} entry ${i}`, 'delayUs and compUs as non-negative numbers of microseconds');
    }
    return { delayUs, compUs };
  });
  table.sort((a, b) => a.delayUs - b.delayUs);
  for (let i = 1; i < table.length; i++) {
    if (table[i]!.delayUs === table[i - 1]!.delayUs) {
      throw new ConfigError('--compensate', source, `one entry per delay (${table[i]!.delayUs} us appears twice)`);
    }
  }
  return { table };
}
