import { seededUniform } from '../../link/rng.js';

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

/**
 * The intended send time of every command, in nanoseconds from the run's start, ascending, all
 * below the duration. Fixed before the first command goes out: a slow reply can delay a send but
 * never move the schedule, which is what makes the corrected latency honest (wrk2's rule).
 */
export function buildArrivalSchedule(o: ScheduleOptions): Float64Array {
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
