import { describe, expect, it } from 'vitest';
import { trackedCount } from '../../src/redis/tracked-children.js';
import { runBench } from '../../src/workload/bench.js';
import { methodLines } from '../../src/report/context.js';
import { MODES, type BenchResult, type Workload } from '../../src/results/types.js';

const find = (rs: BenchResult[], mode: string, batch: number): BenchResult | undefined =>
  rs.find((r) => r.mode === mode && r.batch === batch);

describe('runBench on direct (private redis-server)', () => {
  for (const workload of ['incr', 'set', 'get'] as Workload[]) {
    it(`runs every applicable shape of ${workload} with every reply checked`, async () => {
      // A 20 ms client warm-up a shape, not 500: each of the 13 to 16 shapes still warms (one sample at least, its
      // replies checked), and these tests check replies and counts, not times.
      const driverWarmupMs = 20;
      const report = await runBench({ links: ['direct'], workload, modes: [...MODES], batches: [1, 7, 50], n: 120, repeat: 2, warmup: 1, sizeBytes: 100, driverWarmupMs });
      expect(report.kind).toBe('bench');
      for (const r of report.results) {
        expect(r.error, `${r.mode} B=${r.batch}`).toBeUndefined();
        expect(r.repeat).toBe(2);
        expect(r.samplesMs).toHaveLength(2);
        expect(r.medianMs).toBeGreaterThan(0);
        expect(r.waits).toBe(Math.ceil(120 / r.batch));
        expect(r.roundTrips).toBeNull(); // no proxy on direct
        expect(r.histogram!.length).toBeGreaterThan(10);
        expect(r.link).toBe('direct');
      }
      // seq runs once (batch 1), every other applicable shape once per batch.
      const applicable = MODES.filter((m) => !(m === 'mget' && workload !== 'get') && !(m === 'mset' && workload !== 'set'));
      expect(report.results).toHaveLength(1 + (applicable.length - 1) * 3);
      expect(find(report.results, 'seq', 1)?.speedup).toBe(1);
      const skipped = MODES.filter((m) => !applicable.includes(m));
      for (const m of skipped) expect(report.notes.join('\n')).toContain(`skipped ${m} with the ${workload} workload`);
      expect(report.environment.redis).toMatch(/^\d+\./);
      expect(report.environment.ioredis).toBe('6.0.0');
    });
  }

  it('runs the seed-000 shape (2048 INCRs, batches 1/8/64/256) and pipelining wins', async () => {
    const report = await runBench({ links: ['direct'], workload: 'incr', modes: ['seq', 'pipeline'], batches: [8, 64, 256], n: 2048, repeat: 3 });
    const seq = find(report.results, 'seq', 1);
    const p256 = find(report.results, 'pipeline', 256);
    expect(seq?.error).toBeUndefined();
    expect(p256?.waits).toBe(8);
    // A loose bound: on any machine 8 waits beat 2048 by far.
    expect((p256?.medianMs ?? Infinity) * 2).toBeLessThan(seq?.medianMs ?? 0);
    expect(report.method.order).toBe('rotated');
  });

  it('reports progress: an estimate first, then one event per sample', async () => {
    const events: string[] = [];
    const report = await runBench({ links: ['direct'], workload: 'incr', modes: ['seq', 'pipeline'], batches: [10], n: 20, repeat: 2, warmup: 1, driverWarmupMs: 50 }, (ev) => {
      events.push(ev.type === 'sample' ? `${ev.phase}:${ev.done}/${ev.total}` : ev.type === 'note' ? `note:${ev.text.split(':')[0]}` : ev.type);
    });
    expect(events).toEqual(['estimate', 'note:client warm-up', 'warmup:1/6', 'timed:2/6', 'warmup:3/6', 'timed:4/6', 'timed:5/6', 'timed:6/6']);
    // Two shapes (seq, pipeline of 10), each until 20k commands or 50 ms: at least one sample each.
    const w = report.method.driverWarmup!;
    expect(w.shapes).toBe(2);
    expect(w.ops).toBeGreaterThanOrEqual(40);
    expect(w.ops).toBeLessThanOrEqual(40_000);
    expect(w.ops % 20).toBe(0);
  });

  it('a client warm-up of one shape says so in the singular (it said "1 shapes", "each of the 1 shapes")', async () => {
    const notes: string[] = [];
    const report = await runBench({ links: ['direct'], workload: 'incr', modes: ['seq'], n: 20, repeat: 1, driverWarmupMs: 20 }, (ev) => {
      if (ev.type === 'note') notes.push(ev.text);
    });
    expect(notes).toContainEqual(expect.stringMatching(/^client warm-up: 1 shape straight to Redis, \d+ commands in \d+ ms$/));
    expect(methodLines(report.method)).toContainEqual(expect.stringMatching(/^before any sample, the client ran the one shape straight to Redis \(/));
  });

  it('--driver-warmup 0 skips the client warm-up; a negative one is refused', async () => {
    const report = await runBench({ links: ['direct'], workload: 'incr', modes: ['seq'], n: 20, repeat: 1, driverWarmupMs: 0 });
    expect(report.method.driverWarmup).toBeUndefined();
    await expect(runBench({ links: ['direct'], n: 20, driverWarmupMs: -1 })).rejects.toThrow(/--driver-warmup/);
  });

  it('stops starting samples at --max-seconds and says which cells did not run', async () => {
    const report = await runBench({ links: ['direct'], workload: 'incr', modes: ['seq', 'pipeline'], batches: [4, 16], n: 400, repeat: 50, warmup: 1, maxSeconds: 0.05 });
    expect(report.notes.join('\n')).toMatch(/stopped within --max-seconds 0.05/);
    for (const r of report.results) expect(r.repeat).toBeLessThan(50);
    for (const r of report.results) if (r.repeat > 0) expect(r.note).toMatch(/of 50 repetitions/);
  });

  it('returns what finished when aborted, and removes the private redis', async () => {
    const controller = new AbortController();
    let samples = 0;
    const report = await runBench({ links: ['direct'], workload: 'set', modes: ['seq', 'pipeline'], batches: [10], n: 200, repeat: 20, signal: controller.signal }, (ev) => {
      if (ev.type === 'sample' && ++samples === 4) controller.abort('SIGINT'); // as the CLI's Ctrl-C aborts
    });
    expect(report.notes.join('\n')).toMatch(/stopped on request/);
    // Marked as calibrate and bench --cluster mark theirs (only the note said so).
    expect(report).toMatchObject({ interrupted: true, stoppedBy: 'SIGINT' });
    const kept = report.results.reduce((s, r) => s + r.repeat, 0);
    expect(kept).toBe(2); // 2 warm-ups, then 2 timed samples before the abort
    expect(trackedCount()).toBe(0);
  });
});
