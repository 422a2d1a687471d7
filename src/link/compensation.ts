import { z } from 'zod';
import { ConfigError } from '../errors.js';

/** At a configured one-way delay, how many microseconds to take off it. */
export type CompensationPoint = z.output<typeof POINT>;

/**
 * What the proxy takes off each one-way delay so a client sees direct + configured.
 * - `{ up, down }`: a constant per direction (the proxy's own hop, measured at start or given);
 * - `{ table }`: a function of the configured delay, measured by `redis-rtt calibrate`. A client
 *   and a Redis that sleep for the whole delay pay a wake-up that grows with it, which a constant
 *   cannot follow (figures: docs/measurements.md).
 */
export type Compensation = z.output<typeof COMPENSATION>;

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

const POINT_ACCEPTS = 'delayUs and compUs as non-negative numbers of microseconds';
const POINT = z.object(
  {
    delayUs: z.number({ error: POINT_ACCEPTS }).min(0).describe('Configured one-way delay, microseconds.'),
    compUs: z.number({ error: POINT_ACCEPTS }).min(0).describe('Microseconds taken off at that delay.'),
  },
  { error: POINT_ACCEPTS },
);

/** A compensation table: sorted by delay, one entry per delay. */
export const COMPENSATION_TABLE = z
  .array(POINT, { error: 'a non-empty array of {delayUs, compUs}' })
  .min(1)
  .transform((t) => [...t].sort((a, b) => a.delayUs - b.delayUs))
  .superRefine((t, ctx) => {
    const twice = t.find((p, i) => i > 0 && p.delayUs === t[i - 1]!.delayUs);
    if (twice) ctx.addIssue({ code: 'custom', message: `one entry per delay (${twice.delayUs} us appears twice)` });
  });

const NOT_A_KEY = 'a key of compensationUs: up and down, or table';

/** The `compensationUs` option: `{ up, down }` or `{ table }` (the Compensation type's schema). */
export const COMPENSATION = z.union(
  [
    z.strictObject(
      {
        up: z.number({ error: 'microseconds, 0 or more' }).min(0).describe('Microseconds off each client -> Redis delay.'),
        down: z.number({ error: 'microseconds, 0 or more' }).min(0).describe('Microseconds off each Redis -> client delay.'),
      },
      { error: (issue) => (issue.code === 'unrecognized_keys' ? NOT_A_KEY : undefined) },
    ),
    z.strictObject({ table: COMPENSATION_TABLE }, { error: (issue) => (issue.code === 'unrecognized_keys' ? NOT_A_KEY : undefined) }),
  ],
  { error: '{ up, down } in non-negative microseconds, or { table } of {delayUs, compUs}' },
);

/**
 * Checks a table read from a file or passed by a caller, sorted by delay. Accepts a bare array or
 * anything with a `compensationTable` array (a saved `redis-rtt calibrate --json` result).
 */
export function parseCompensationTable(data: unknown, source: string): { table: CompensationPoint[] } {
  const raw = Array.isArray(data) ? data : (data as { compensationTable?: unknown } | null)?.compensationTable;
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new ConfigError('--compensate', source, 'a calibrate --json result with a compensationTable, or an array of {delayUs, compUs}');
  }
  const r = COMPENSATION_TABLE.safeParse(raw);
  if (r.success) return { table: r.data };
  const issue = r.error.issues[0]!;
  const entry = issue.path[0];
  if (typeof entry === 'number') throw new ConfigError('--compensate', `${source} entry ${entry}`, issue.message);
  throw new ConfigError('--compensate', source, issue.message);
}
