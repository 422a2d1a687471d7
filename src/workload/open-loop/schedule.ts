import { z } from 'zod';
import { seededUniform } from '../../link/rng.js';
import { keyPath, parseWith } from '../../validation/schema.js';

/** How commands arrive: `poisson` (exponential gaps, the arrivals of many independent users) or `uniform` (evenly spaced). */
export type Arrival = 'poisson' | 'uniform';
export const ARRIVALS: readonly Arrival[] = ['poisson', 'uniform'];

export interface ScheduleOptions {
  /** Commands per second, all connections together. */
  ratePerSec: number;
  durationUs: number;
  arrival: Arrival;
  /** Seeds the Poisson gaps, so a run can be repeated exactly. */
  seed: number;
}

const POSITIVE = 'a number above 0';
const SEED = 'a whole number of 0 or more';
const SHAPE = {
  ratePerSec: z.number({ error: POSITIVE }).positive({ error: POSITIVE }),
  durationUs: z.number({ error: POSITIVE }).positive({ error: POSITIVE }),
  arrival: z.enum(ARRIVALS as [Arrival, ...Arrival[]], { error: ARRIVALS.join(' or ') }),
  // As runOpenLoopBench's --seed takes it: any whole number of 0 or more, past 2^53 too.
  seed: z.number({ error: SEED }).min(0, { error: SEED }).refine(Number.isInteger, { error: SEED }),
} satisfies Record<keyof ScheduleOptions, z.ZodType>;

/**
 * Exported: a rate of 0 or a missing duration gave an empty schedule without a word, a negative or
 * infinite one a RangeError naming nothing. A ConfigError names the key (`buildArrivalSchedule.ratePerSec`).
 */
const SCHEDULE_OPTIONS = z.strictObject(SHAPE, {
  error: (issue) =>
    issue.code === 'unrecognized_keys' ? `a key of buildArrivalSchedule's options: ${Object.keys(SHAPE).join(', ')}` : 'an object of schedule options',
});

/**
 * The intended send time of every command, in nanoseconds from the run's start, ascending, all
 * below the duration. Fixed before the first command goes out: a slow reply can delay a send but
 * never move the schedule, which is what makes the corrected latency honest (wrk2's rule).
 */
export function buildArrivalSchedule(o: ScheduleOptions): Float64Array {
  parseWith(SCHEDULE_OPTIONS, o, keyPath('buildArrivalSchedule'));
  const durationNs = o.durationUs * 1000;
  const meanGapNs = 1e9 / o.ratePerSec;
  const expected = Math.ceil(o.ratePerSec * (o.durationUs / 1e6));
  if (o.arrival === 'uniform') {
    const out = new Float64Array(expected);
    let n = 0;
    for (let i = 0; i < expected; i++) {
      const t = i * meanGapNs;
      if (t >= durationNs) break;
      out[n++] = t;
    }
    return out.subarray(0, n);
  }
  const uniform = seededUniform(o.seed);
  // Room for a few standard deviations more than expected; grown if a seed overshoots.
  let out = new Float64Array(expected + 8 * Math.ceil(Math.sqrt(expected)) + 16);
  let n = 0;
  let t = -Math.log(1 - uniform()) * meanGapNs;
  while (t < durationNs) {
    if (n === out.length) {
      const bigger = new Float64Array(out.length * 2);
      bigger.set(out);
      out = bigger;
    }
    out[n++] = t;
    t += -Math.log(1 - uniform()) * meanGapNs;
  }
  return out.subarray(0, n);
}
