import { describe, expect, it } from 'vitest';
import { percentileLabel, percentileTicks } from '../../src/svg/percentile-curve.js';
import { ceil125, floor125, linearTicks, logTicks, makeScale, niceLinearDomain, niceLogDomain, niceStep } from '../../src/svg/scale.js';

const values = (ticks: Array<{ value: number }>): number[] => ticks.map((t) => t.value);
const labelled = (ticks: Array<{ value: number; label: boolean }>): number[] => ticks.filter((t) => t.label).map((t) => t.value);

describe('linear scale', () => {
  it('steps are 1, 2 or 5 times a power of ten', () => {
    expect(niceStep(10, 5)).toBe(2);
    expect(niceStep(100, 5)).toBe(20);
    expect(niceStep(1, 4)).toBe(0.2);
    expect(niceStep(37, 6)).toBe(5);
    expect(niceStep(0.03, 6)).toBe(0.005);
  });

  it('ticks cover the domain without float noise', () => {
    expect(values(linearTicks(0, 1, 5))).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(values(linearTicks(0, 0.3, 3))).toEqual([0, 0.1, 0.2, 0.3]);
    expect(values(linearTicks(-10, 10, 4))).toEqual([-10, -5, 0, 5, 10]);
  });

  it('nice domains snap outward and survive a flat range', () => {
    expect(niceLinearDomain(3, 97)).toEqual([0, 100]);
    expect(niceLinearDomain(0.12, 0.87)).toEqual([0.1, 0.9]);
    expect(niceLinearDomain(0.12, 0.93)).toEqual([0, 1]);
    expect(niceLinearDomain(5, 5)).toEqual([0, 5]);
    expect(niceLinearDomain(0, 0)).toEqual([0, 1]);
    expect(niceLinearDomain(Number.NaN, 1)).toEqual([0, 1]);
  });

  it('maps domain to range, y inverted when asked', () => {
    const s = makeScale('linear', [0, 10], [100, 0]);
    expect(s.map(0)).toBe(100);
    expect(s.map(5)).toBe(50);
    expect(s.map(10)).toBe(0);
  });
});

describe('log scale', () => {
  it('snaps to 1-2-5 values', () => {
    expect(floor125(3.7)).toBe(2);
    expect(floor125(0.07)).toBe(0.05);
    expect(floor125(1000)).toBe(1000);
    expect(ceil125(3.7)).toBe(5);
    expect(ceil125(6)).toBe(10);
    expect(ceil125(0.0012)).toBe(0.002);
    expect(niceLogDomain(1.3, 870)).toEqual([1, 1000]);
    expect(niceLogDomain(0, 10)).toEqual([1, 10]);
    expect(niceLogDomain(4, 4)).toEqual([2, 5]);
  });

  it('labels 1, 2 and 5 up to three decades', () => {
    const t = logTicks(1, 1000);
    expect(values(t)).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]);
    expect(labelled(t)).toEqual(values(t));
  });

  it('labels only powers of ten beyond three decades, and every other one beyond eight', () => {
    const t = logTicks(0.1, 100_000);
    expect(labelled(t)).toEqual([0.1, 1, 10, 100, 1000, 10_000, 100_000]);
    expect(values(t)).toContain(0.2);
    expect(values(t)).toContain(50_000);
    expect(labelled(logTicks(1, 1e10))).toEqual([1, 100, 1e4, 1e6, 1e8, 1e10]);
  });

  it('maps decades to equal distances', () => {
    const s = makeScale('log', [1, 1000], [0, 300]);
    expect(s.map(1)).toBeCloseTo(0);
    expect(s.map(10)).toBeCloseTo(100);
    expect(s.map(100)).toBeCloseTo(200);
  });

  it('gives no ticks for an empty or non-positive domain', () => {
    expect(logTicks(0, 10)).toEqual([]);
    expect(logTicks(10, 10)).toEqual([]);
  });
});

describe('percentile axis', () => {
  it('places 90%, 99%, 99.9% one unit apart', () => {
    expect([0, 1, 2, 3, 4].map(percentileLabel)).toEqual(['0%', '90%', '99%', '99.9%', '99.99%']);
    expect(values(percentileTicks(3.7))).toEqual([0, 1, 2, 3, 4]);
  });
});
