import { z } from 'zod';
import { hook, parseWith } from '../validation/schema.js';
import { JITTER_DISTS, type JitterDist } from './types.js';
import type { Uniform } from './rng.js';

/**
 * Jitter distributions with the shapes netem uses (iproute2's netem/*.c tables), written as
 * inverse CDFs of a uniform u in (0, 1), in units of the jitter scale J:
 *
 *   uniform:      t = 2u - 1                                   (netem: delay +- jitter, flat)
 *   normal:       t = clamp(Phi^-1(u), -4, 4)                  (netem's table is clamped at +-4 sigma)
 *   pareto:       t = min(4, ((1-u)^(-1/3) - 1.5) * 4/3)       (Pareto a=3 shifted to mean 0, scaled 4/3)
 *   paretonormal: t = clamp((Phi^-1(u) + 3 * pareto(u)) / 4, -4, 4)   (netem: .25 normal + .75 pareto,
 *                                                               both read at the same u)
 *
 * delay = configured + J * (t - mean(t)). netem leaves the clamped pareto tables with a mean
 * slightly off zero and toxiproxy's discrete uniform is 0.5 ms low; we subtract the exact mean of
 * the clamped shape (computed numerically once) so the mean delay equals the configured delay.
 * The only thing that can still raise the mean is the floor at zero delay (J larger than the
 * delay allows for the shape's lower tail); `meanShiftRisk` tells callers when that can happen.
 */

const CLAMP = 4;

/** Peter Acklam's rational approximation of the standard normal quantile (|error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const pLow = 0.02425;
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - pLow) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  const num = (((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q;
  const den = ((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1;
  return num / den;
}

const clamp = (x: number): number => (x < -CLAMP ? -CLAMP : x > CLAMP ? CLAMP : x);
const paretoShape = (u: number): number => Math.min(CLAMP, (Math.pow(1 - u, -1 / 3) - 1.5) * (4 / 3));

/** The raw (not yet mean-corrected) shape t(u). */
export function rawShape(dist: JitterDist, u: number): number {
  switch (dist) {
    case 'uniform':
      return 2 * u - 1;
    case 'normal':
      return clamp(normalQuantile(u));
    case 'pareto':
      return paretoShape(u);
    case 'paretonormal':
      return clamp((normalQuantile(u) + 3 * paretoShape(u)) / 4);
  }
}

/** Mean of t(u) over u in (0,1), by the midpoint rule (the shapes are bounded, so this converges). */
function shapeMean(dist: JitterDist): number {
  const steps = 200_000;
  let sum = 0;
  for (let i = 0; i < steps; i++) sum += rawShape(dist, (i + 0.5) / steps);
  return sum / steps;
}

const MEANS = new Map<JitterDist, number>();
function meanOf(dist: JitterDist): number {
  let m = MEANS.get(dist);
  if (m === undefined) {
    m = shapeMean(dist);
    MEANS.set(dist, m);
  }
  return m;
}

/**
 * Mean absolute deviation of the mean-corrected shape (in units of the jitter scale), by the
 * midpoint rule: what a TCP sender's RTTVAR settles at when its samples vary this way.
 */
function shapeMeanDeviation(dist: JitterDist): number {
  const steps = 200_000;
  const mean = meanOf(dist);
  let sum = 0;
  for (let i = 0; i < steps; i++) sum += Math.abs(rawShape(dist, (i + 0.5) / steps) - mean);
  return sum / steps;
}

const DEVIATIONS = new Map<JitterDist, number>();
/** The mean deviation of a delay with this jitter, microseconds (0 without jitter). */
export function meanDeviationUs(dist: JitterDist, jitterUs: number): number {
  if (jitterUs <= 0) return 0;
  let d = DEVIATIONS.get(dist);
  if (d === undefined) {
    d = shapeMeanDeviation(dist);
    DEVIATIONS.set(dist, d);
  }
  return jitterUs * d;
}

/** Lowest value of the mean-corrected shape: delays below J * |lowest| would be floored at 0. */
export function shapeLowest(dist: JitterDist): number {
  return rawShape(dist, 1e-12) - meanOf(dist);
}

const US = 'microseconds, 0 or more';
const JITTER_ARGS = z.tuple([
  z.enum(JITTER_DISTS as [JitterDist, ...JitterDist[]], { error: JITTER_DISTS.join(', ') }),
  z.number({ error: US }).min(0, { error: US }),
  z.number({ error: US }).min(0, { error: US }),
  hook<Uniform>('a function returning a number from 0 to 1'),
]);
const JITTER_ARG_NAMES = ['dist', 'delayUs', 'jitterUs', 'uniform'];

/**
 * Returns a sampler of one-way delay in microseconds, mean = delayUs (unless floored at 0). Its
 * arguments are checked here, once per link (exported: an unknown dist or a NaN delay made a sampler
 * of 0 us without a word); a ConfigError names the argument (`jitterSampler(dist)`).
 */
export function jitterSampler(dist: JitterDist, delayUs: number, jitterUs: number, uniform: Uniform): () => number {
  parseWith(JITTER_ARGS, [dist, delayUs, jitterUs, uniform], (path) => `jitterSampler(${JITTER_ARG_NAMES[Number(path[0])] ?? ''})`);
  if (jitterUs <= 0) return () => delayUs;
  const offset = jitterOffsetSampler(dist, jitterUs, uniform);
  return () => {
    const d = delayUs + offset();
    return d > 0 ? d : 0;
  };
}

/** The jitter alone, microseconds, mean 0 and not floored: for a delay whose mean moves (delay-shape.ts). */
export function jitterOffsetSampler(dist: JitterDist, jitterUs: number, uniform: Uniform): () => number {
  if (jitterUs <= 0) return () => 0;
  const mean = meanOf(dist);
  return () => {
    let u = uniform();
    if (u <= 0) u = Number.MIN_VALUE;
    return jitterUs * (rawShape(dist, u) - mean);
  };
}

/** True when the configured jitter can push some delays below zero (then the mean rises). */
export function meanShiftRisk(dist: JitterDist, delayUs: number, jitterUs: number): boolean {
  return jitterUs > 0 && delayUs + jitterUs * shapeLowest(dist) < 0;
}

/** Largest jitter scale whose lower tail stays above zero delay for this one-way delay. */
export function maxJitterWithoutFloorUs(dist: JitterDist, delayUs: number): number {
  return Math.floor(delayUs / -shapeLowest(dist));
}

/**
 * A warning when jitter reaches zero delay in its lower tail: those delays are floored at 0, so
 * the mean delay rises above the configured one (for `normal`, jitter above about a quarter of the
 * one-way delay, since its table is clamped at 4 sigma). Undefined when the link is safe.
 */
export function jitterFloorWarning(s: { upUs: number; downUs: number; jitterUs: number; jitterDist: JitterDist }): string | undefined {
  const delayUs = Math.min(s.upUs, s.downUs);
  if (!meanShiftRisk(s.jitterDist, delayUs, s.jitterUs)) return undefined;
  return (
    `warning: jitter ${s.jitterUs} us (${s.jitterDist}) reaches zero delay in its lower tail on a ${delayUs} us one-way delay: ` +
    `those delays are floored at 0, so the mean delay rises above the configured one; keep jitter at most ` +
    `${maxJitterWithoutFloorUs(s.jitterDist, delayUs)} us for this delay and distribution`
  );
}
