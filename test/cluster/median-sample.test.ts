import { describe, expect, it } from 'vitest';
import { medianSample } from '../../src/cluster/bench/sample-shapes.js';

describe('the sample a cluster bench row takes its round trips from', () => {
  it('is the median one, the lower middle for an even count (it was the first sample, an outlier here)', () => {
    const samples = [
      { us: 900, rt: 31 },
      { us: 100, rt: 10 },
      { us: 120, rt: 12 },
      { us: 110, rt: 11 },
    ];
    expect(medianSample(samples).rt).toBe(11);
    expect(medianSample(samples.slice(0, 3)).rt).toBe(12);
    expect(medianSample([{ us: 5, rt: 2 }]).rt).toBe(2);
  });
});
