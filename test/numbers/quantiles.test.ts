import { describe, expect, it } from 'vitest';
import { median, quantile, spread } from '../../src/numbers/quantiles.js';

describe('median, quantile, spread', () => {
  it('median: the middle value, the mean of the two middle ones for an even count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBe(0);
  });

  it('quantile: nearest rank, a value that was measured', () => {
    const xs = [10, 20, 30, 40];
    expect(quantile(xs, 0.5)).toBe(30);
    expect(quantile(xs, 0.99)).toBe(40);
    expect(quantile(xs, 0)).toBe(10);
    expect(quantile([], 0.5)).toBe(0);
  });

  it('spread: median, min and max, rounded when asked, without touching the input', () => {
    const xs = [1.26, 0.5, 2, 1.74];
    expect(spread(xs)).toEqual({ median: 1.5, min: 0.5, max: 2 });
    expect(spread(xs, 0)).toEqual({ median: 2, min: 1, max: 2 });
    expect(xs).toEqual([1.26, 0.5, 2, 1.74]);
    expect(spread([])).toEqual({ median: 0, min: 0, max: 0 });
  });
});
