import { describe, expect, it } from 'vitest';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { estimateDriverWarmupMs } from '../../src/workload/driver-warmup.js';
import { planConfigurations } from '../../src/workload/plan.js';

describe('the client warm-up estimate', () => {
  const plan = (links: string[], modes: ('seq' | 'pipeline')[], batches: number[], n: number) =>
    planConfigurations({ links: links.map((l) => parseLinkSpec(l)), modes, batches, workloads: ['set'], n, repeat: 3, warmup: 1 }).configs;

  it('counts each (mode, workload, batch) once, whatever the number of links', () => {
    const one = estimateDriverWarmupMs(plan(['direct'], ['pipeline'], [10, 100], 1000), 500);
    const three = estimateDriverWarmupMs(plan(['direct', 'local', 'cross-az'], ['pipeline'], [10, 100], 1000), 500);
    expect(three).toBe(one);
    expect(one).toBeGreaterThan(0);
  });

  it('caps each shape at its budget: a slow seq loop costs the budget, a fast pipeline less', () => {
    const seq = estimateDriverWarmupMs(plan(['direct'], ['seq'], [1], 1000), 500);
    const pipeline = estimateDriverWarmupMs(plan(['direct'], ['pipeline'], [1000], 1000), 500);
    expect(seq).toBe(500);
    expect(pipeline).toBeLessThan(500);
    expect(estimateDriverWarmupMs(plan(['direct'], ['seq', 'pipeline'], [1000], 1000), 500)).toBe(seq + pipeline);
    expect(estimateDriverWarmupMs(plan(['direct'], ['seq'], [1], 1000), 0)).toBe(0);
  });
});
