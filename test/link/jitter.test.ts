import { describe, expect, it } from 'vitest';
import { jitterSampler, meanShiftRisk, normalQuantile, rawShape } from '../../src/link/jitter.js';
import { seededUniform } from '../../src/link/rng.js';
import { JITTER_DISTS } from '../../src/link/types.js';

function stats(xs: number[]) {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  let min = Infinity;
  let max = -Infinity;
  for (const x of xs) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { mean, sd, min, max };
}

describe('jitter distributions', () => {
  it('normalQuantile matches known values', () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
  });

  it('pareto follows netem: (U^-1/3 - 1.5) * 4/3, capped at 4', () => {
    // u = 0 -> (1 - 1.5) * 4/3
    expect(rawShape('pareto', 0)).toBeCloseTo(-2 / 3, 9);
    expect(rawShape('pareto', 1 - 1e-12)).toBe(4);
  });

  for (const dist of JITTER_DISTS) {
    it(`${dist}: mean equals the configured delay and spread scales with jitter`, () => {
      const sample = jitterSampler(dist, 1000, 100, seededUniform(42));
      const xs = Array.from({ length: 200_000 }, sample);
      const s = stats(xs);
      expect(Math.abs(s.mean - 1000)).toBeLessThan(1.5); // 0.15% of the delay
      expect(s.sd).toBeGreaterThan(30);
      expect(s.sd).toBeLessThan(130);
      expect(s.min).toBeGreaterThanOrEqual(1000 - 4 * 100 - 50);
      expect(s.max).toBeLessThanOrEqual(1000 + 4 * 100 + 50);
    });
  }

  it('uniform spans delay +- jitter with sd J/sqrt(3)', () => {
    const xs = Array.from({ length: 100_000 }, jitterSampler('uniform', 500, 200, seededUniform(1)));
    const s = stats(xs);
    expect(s.min).toBeGreaterThanOrEqual(300);
    expect(s.max).toBeLessThanOrEqual(700);
    expect(s.sd).toBeCloseTo(200 / Math.sqrt(3), 0);
  });

  it('normal has sd close to the jitter', () => {
    const s = stats(Array.from({ length: 100_000 }, jitterSampler('normal', 5000, 300, seededUniform(3))));
    expect(Math.abs(s.sd - 300) / 300).toBeLessThan(0.02);
  });

  it('the same seed gives the same delays', () => {
    const a = Array.from({ length: 10 }, jitterSampler('paretonormal', 100, 10, seededUniform(99)));
    const b = Array.from({ length: 10 }, jitterSampler('paretonormal', 100, 10, seededUniform(99)));
    const c = Array.from({ length: 10 }, jitterSampler('paretonormal', 100, 10, seededUniform(100)));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('never samples a negative delay, and says when flooring shifts the mean', () => {
    const xs = Array.from({ length: 10_000 }, jitterSampler('normal', 50, 100, seededUniform(5)));
    expect(Math.min(...xs)).toBe(0);
    expect(meanShiftRisk('normal', 50, 100)).toBe(true);
    expect(meanShiftRisk('uniform', 100, 100)).toBe(false);
    expect(meanShiftRisk('normal', 1000, 100)).toBe(false);
  });

  it('no jitter means a constant delay', () => {
    const s = jitterSampler('pareto', 123, 0, seededUniform(1));
    expect([s(), s(), s()]).toEqual([123, 123, 123]);
  });
});
