/**
 * `bench --max-seconds` is a bound: the TimeBudget rules with a fake clock, the schedule (warm-ups just
 * before their configuration's first timed sample), and the exact command on the real binary.
 */
import { describe, expect, it } from 'vitest';
import { parseLinkSpec } from '../../src/link/link-spec.js';
import { planConfigurations } from '../../src/workload/plan.js';
import { buildSchedule } from '../../src/workload/runner.js';
import { TimeBudget } from '../../src/workload/time-budget.js';
import type { BenchReport } from '../../src/results/types.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

describe('TimeBudget', () => {
  it('runs what fits, skips a warm-up that would crowd out its timed sample, keeps a first sample for the end, stops past the bound', () => {
    let nowMs = 1000;
    const b = new TimeBudget(3000, 1000, () => nowMs);
    expect(b.warmup(100, 100)).toBe('run');
    expect(b.warmup(2000, 1500)).toBe('skip');
    expect(b.timed(2900, false)).toBe('run');
    expect(b.timed(8500, false)).toBe('defer');
    expect(b.timed(8500, true)).toBe('skip');
    nowMs = 3999;
    expect(b.late()).toBe('run');
    nowMs = 4000;
    expect(b.timed(1, false)).toBe('stop');
    expect(b.warmup(1, 1)).toBe('stop');
    expect(b.late()).toBe('stop');
  });
});

describe('buildSchedule', () => {
  it('puts each configuration\'s warm-ups right before its first timed sample, then rotates', () => {
    const { configs } = planConfigurations({ links: [parseLinkSpec('local'), parseLinkSpec('cross-region')], modes: ['seq'], batches: [1], workloads: ['incr'], n: 10, repeat: 2, warmup: 2 });
    expect(buildSchedule(configs).map((s) => `${s.phase === 'warmup' ? 'w' : 't'}${s.index}`)).toEqual(['w0', 'w0', 't0', 'w1', 'w1', 't1', 't1', 't0']);
  });
});

describe('redis-rtt bench --max-seconds (the built binary)', () => {
  it('the issue\'s command: warns first, finishes within the bound plus one sample, prints results for both links', async () => {
    const boundS = 3;
    const t0 = performance.now();
    const r = await runCli(['bench', '--links', 'local,cross-region', '--modes', 'seq', '-n', '100', '--max-seconds', String(boundS), '--driver-warmup', '0', '--format', 'json'], 60_000);
    const wallMs = performance.now() - t0;
    expect(r.code, r.stderr).toBe(0);
    const warning = r.stderr.indexOf('warning: one sample of cross-region seq incr n=100 takes about 8.5 s');
    expect(warning, r.stderr).toBeGreaterThan(0);
    expect(warning).toBeLessThan(r.stderr.indexOf('] sample'));
    const report = JSON.parse(r.stdout) as BenchReport;
    const local = report.results.find((x) => x.link === 'local');
    const far = report.results.find((x) => x.link === 'cross-region');
    expect(local?.samplesMs.length).toBeGreaterThanOrEqual(1);
    expect(far?.samplesMs).toHaveLength(1);
    const sampleMs = far!.samplesMs[0]!;
    // Node's start-up and the teardown (links, the private redis-server) sit outside runBench's clock:
    // 1.5 s for both. Before the fix the run took ~10.5 s and printed no results at all.
    expect(wallMs, r.stderr).toBeLessThan(boundS * 1000 + sampleMs + 1500);
  }, 60_000);
});
