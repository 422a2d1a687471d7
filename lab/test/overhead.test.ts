import { describe, expect, it } from 'vitest';
import { startBarePipe } from '../overhead/bare-pipe.js';
import { processCpuUs } from '../overhead/server-child.js';
import { overheadVerdict, renderOverhead } from '../overhead/overhead-render.js';
import { runOverhead, type OverheadReport, type ThroughputRow } from '../overhead/overhead.js';
import { rawCommands, startPrivateRedis } from '../../src/redis/index.js';

describe('overhead', () => {
  it('measures direct, proxy and bare pipe with redis-benchmark, and sequential SETs no faster than the link', async () => {
    const lines: string[] = [];
    const r = await runOverhead({
      repeat: 2,
      scale: 0.02,
      seqN: 40,
      linkRttUs: 2000,
      compensationUs: { up: 0, down: 0 },
      progress: (l) => lines.push(l),
    });
    expect(r.throughput.map((t) => `${t.load} ${t.test}`).sort()).toEqual(['-c 1 -P 1 GET', '-c 1 -P 1 SET', '-c 50 -P 16 GET', '-c 50 -P 16 SET']);
    for (const t of r.throughput) {
      for (const rps of [t.directRps, t.proxyRps, t.pipeRps]) expect(rps.min, `${t.load} ${t.test}`).toBeGreaterThan(0);
      expect(t.ratio.min).toBeGreaterThan(0);
      expect(t.pipeRatio.min).toBeGreaterThan(0);
    }
    // Both servers ran in processes of their own, whose CPU per request /proc gave.
    expect(r.cpu?.map((c) => c.load)).toEqual(['-c 1 -P 1', '-c 50 -P 16']);
    for (const c of r.cpu!) {
      expect(c.proxyUsPerRequest.median, c.load).toBeGreaterThan(0);
      expect(c.pipeUsPerRequest.median, c.load).toBeGreaterThan(0);
    }
    // Warm-up first, then each repetition runs all three targets, in rotated order.
    expect(lines[0]).toMatch(/warm-up/);
    const firstRep = lines.filter((l) => /rep 1\/2 redis-benchmark -c 1 -P 1/.test(l)).map((l) => l.split(' ').pop());
    const secondRep = lines.filter((l) => /rep 2\/2 redis-benchmark -c 1 -P 1/.test(l)).map((l) => l.split(' ').pop());
    expect(firstRep).toEqual(['direct', 'proxy', 'pipe']);
    expect(secondRep).toEqual(['proxy', 'pipe', 'direct']);
    // With no compensation the delay line can only be late: 40 round trips of 2 ms take at least 80 ms.
    // The upper bound (3x) catches a line that doubles its delay; a 2-core CI machine stays well inside.
    expect(r.sequential.totalMs.min).toBeGreaterThanOrEqual(80);
    expect(r.sequential.totalMs.max).toBeLessThan(240);
    expect(r.sequential).toMatchObject({ n: 40, linkRttUs: 2000, compensation: 'constant', compensationUs: 0 });
    // Beside it, in the same repetitions, the hop-only proxy: late by at most its own hop's compensation.
    const hop = r.sequential.hopOnly!;
    expect(hop.compensationUs).toBeGreaterThanOrEqual(0);
    expect(hop.totalMs.min).toBeGreaterThanOrEqual((40 * (2000 - 2 * hop.compensationUs)) / 1000);
    expect(hop.totalMs.max).toBeLessThan(240);
    const text = renderOverhead(r);
    expect(text).toMatch(/proxy\/direct \(min-max\)\s+pipe\/direct \(min-max\)\s+proxy\/pipe/);
    expect(text).toMatch(/^-c 50 -P 16\s+GET/m);
    expect(text).toContain(overheadVerdict(r));
    expect(text).toContain(`through a proxy taking off its hop only (${hop.compensationUs} us)`);
  }, 120_000);

  it("'calibrate' measures the sequential link against the private Redis first and keeps the hop-only run beside it", async () => {
    const lines: string[] = [];
    const r = await runOverhead({ repeat: 1, scale: 0.005, seqN: 40, linkRttUs: 2000, compensationUs: 'calibrate', progress: (l) => lines.push(l) });
    expect(lines.some((l) => /^calibrated: 1ms one-way -> [\d.]+ us off/.test(l))).toBe(true);
    const taken = Number(/-> ([\d.]+) us off/.exec(lines.find((l) => l.startsWith('calibrated:'))!)![1]);
    expect(r.sequential.compensation).toBe('calibrated at start');
    expect(r.sequential.compensationUs).toBeCloseTo(taken, 1);
    expect(r.sequential.hopOnly).toBeDefined();
    // Whatever it takes off, it never takes off the whole one-way delay.
    expect(r.sequential.totalMs.min).toBeGreaterThan(0);
    expect(r.sequential.compensationUs).toBeLessThan(1000);
  }, 120_000);

  it('reads a process\'s CPU from /proc, and nothing for a process that is not there', () => {
    const before = processCpuUs(process.pid)!;
    const own = process.cpuUsage();
    // Spin until Node's own count says 60 ms of CPU went by: a wall-clock spin got less than half of
    // it on a machine busy with other tests, and the bound failed with the reader right.
    const spentUs = (): number => {
      const d = process.cpuUsage(own);
      return d.user + d.system;
    };
    while (spentUs() < 60_000);
    // /proc counts in 10 ms ticks: at most one tick off at each end.
    expect(processCpuUs(process.pid)! - before).toBeGreaterThanOrEqual(spentUs() - 20_000);
    expect(processCpuUs(2 ** 22 + 12345)).toBeUndefined();
  });

  it('the bare pipe forwards both ways and closes its upstream connection with the client', async () => {
    const redis = await startPrivateRedis();
    const pipe = await startBarePipe({ host: redis.host!, port: redis.port! });
    try {
      const [pong, echo] = await rawCommands({ kind: 'tcp', host: pipe.host, port: pipe.port }, [['PING'], ['ECHO', 'x'.repeat(100_000)]]);
      expect(pong!.text).toBe('PONG');
      expect(echo!.text).toBe('x'.repeat(100_000));
      const clients = async (): Promise<number> => {
        const [info] = await rawCommands({ kind: 'tcp', host: redis.host!, port: redis.port! }, [['INFO', 'clients']]);
        return Number(/connected_clients:(\d+)/.exec(info!.text!)![1]);
      };
      await expect.poll(clients, { timeout: 3000, interval: 10 }).toBe(1); // only the INFO connection itself
    } finally {
      await pipe.close();
      await redis.stop();
    }
  });

  it('the verdict takes each load\'s worst test and the sequential ratio against the targets', () => {
    const sp = (median: number) => ({ median, min: median, max: median });
    const row = (load: string, test: string, ratio: number, pipe: number): ThroughputRow => ({
      load, test, directRps: sp(1000), proxyRps: sp(1000 * ratio), pipeRps: sp(1000 * pipe),
      ratio: sp(ratio), pipeRatio: sp(pipe), proxyToPipe: sp(ratio / pipe),
    });
    const report = (seq: number, rows: ThroughputRow[], hopOnly?: number) =>
      ({
        throughput: rows,
        sequential: {
          linkRttUs: 1000,
          ratioToIdeal: sp(seq),
          compensation: hopOnly === undefined ? 'hop (auto)' : 'calibrated at start',
          ...(hopOnly === undefined ? {} : { hopOnly: { ratioToIdeal: sp(hopOnly) } }),
        },
      }) as unknown as OverheadReport;
    expect(overheadVerdict(report(1.077, [row('-c 1 -P 1', 'SET', 0.52, 0.46), row('-c 1 -P 1', 'GET', 0.55, 0.47), row('-c 50 -P 16', 'SET', 0.42, 0.49), row('-c 50 -P 16', 'GET', 0.47, 0.55)], 1.19))).toBe(
      'verdict: -c 1 -P 1: ok (SET 0.52x of direct, target >= 0.38x; bare pipe 0.46x); ' +
        '-c 50 -P 16: below (SET 0.42x of direct, target >= 0.50x; bare pipe 0.49x); ' +
        'sequential at 1000 us: ok (1.077x of the ideal, target <= 1.10x; compensation calibrated at start; hop only 1.190x).',
    );
    expect(overheadVerdict(report(1.2, [row('-c 1 -P 1', 'GET', 0.37, 0.4), row('-c 50 -P 16', 'GET', 0.5, 0.55)]))).toBe(
      'verdict: -c 1 -P 1: below (GET 0.37x of direct, target >= 0.38x; bare pipe 0.40x); ' +
        '-c 50 -P 16: ok (GET 0.50x of direct, target >= 0.50x; bare pipe 0.55x); ' +
        'sequential at 1000 us: over (1.200x of the ideal, target <= 1.10x; compensation hop (auto)).',
    );
  });
});
