import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { main } from '../../../src/cli/main.js';
import { startPrivateRedis } from '../../../src/redis/index.js';
import { resolveOpenLoopOptions } from '../../../src/workload/open-loop/options.js';
import type { OpenLoopReport } from '../../../src/workload/open-loop/types.js';
import { captureCliOutput } from '../../helpers/cli-output.js';

/** The timed run goes this long before SIGINT, so some requests have finished to print. */
const TIMED_RUN_BEFORE_STOP_MS = 500;

const io = captureCliOutput();

const bench = (...args: string[]): Promise<number> => main(['node', 'redis-rtt', 'bench', ...args]);

describe('redis-rtt bench open-loop flags', () => {
  it.each([
    [['--rate', '0'], '--rate'],
    [['--rate', '-5'], '--rate'],
    [['--rate', 'fast'], '--rate'],
    [['--rate', '1k,,5k'], '--rate'],
    [['--clients', '0'], '--clients'],
    [['--clients', '2', '--duration', '5 parsecs'], '--duration'],
    [['--rate', '100', '--duration', '0'], '--duration'],
    [['--batch-window', '0,1ms'], '--batch-window'],
    [['--rate', '100', '--batch-window', '1 fortnight'], '--batch-window'],
    [['--rate', '100', '--modes', 'pipeline'], '--modes'],
    [['--rate', '100', '--batch', '8,16'], '--batch'],
    [['--slo', '2ms'], '--slo'],
    [['--rate', '100', '--csv', 'x.csv'], '--csv'],
    // A schedule of no command (it hung), or of more than memory should hold.
    [['--rate', '100', '--duration', '10us'], '--duration'],
    [['--rate', '1k,10m', '--duration', '2s'], '--rate'],
    // The closed-loop bench's flags: they were ignored (INCR ran whatever --workload said).
    [['--rate', '100', '--workload', 'set'], '--workload'],
    [['--clients', '2', '-n', '5'], '-n'],
    [['--rate', '100', '--max-seconds', '3'], '--max-seconds'],
    [['--rate', '100', '--repeat', '3'], '--repeat'],
    [['--rate', '100', '--compensate', 'maybe'], '--compensate'],
    // Every link is direct here: no proxy to take a cost off.
    [['--rate', '100', '--compensate', 'auto'], '--compensate: invalid value "auto"; expected a link with a proxy'],
    // A window only auto would run, or B with no window: both were dropped without a word.
    [['--rate', '100', '--modes', 'auto', '--batch-window', '1ms'], '--batch-window'],
    [['--rate', '100', '--batch', '16'], '--batch'],
  ])('rejects %j with exit status 2 naming the flag', async (args, flag) => {
    expect(await bench('--links', 'direct', ...args)).toBe(2);
    expect(io.err).toContain(`redis-rtt: ${flag}`);
  });

  it('--compensate takes its value off each one-way delay, as in the closed-loop bench (it was refused with --rate)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-open-'));
    try {
      const p50 = async (...extra: string[]): Promise<number> => {
        const file = join(dir, `${extra.join('') || 'none'}.json`);
        const code = await bench('--links', 'rtt=4ms', '--rate', '100', '--duration', '400', '--arrival', 'uniform', '--json', file, ...extra);
        expect(code, io.err).toBe(0);
        return (JSON.parse(readFileSync(file, 'utf8')) as OpenLoopReport).results[0]!.uncorrectedLatencyUs!.p50;
      };
      // 4 ms round trip as configured; 1.5 ms taken off each way leaves about 1 ms.
      expect(await p50()).toBeGreaterThanOrEqual(4000);
      expect(await p50('--compensate', '1.5ms')).toBeLessThan(2500);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs an open loop and writes the JSON rows and both .hgrm files per run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-open-'));
    try {
      const code = await bench('--links', 'local', '--clients', '1,2', '--rate', '400', '--duration', '300', '--arrival', 'uniform', '--json', join(dir, 'r.json'), '--hgrm-dir', join(dir, 'h'), '--html', join(dir, 'r.html'));
      expect(code, io.err).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as OpenLoopReport;
      expect(report.kind).toBe('open-loop');
      expect(report.results.map((r) => [r.clients, r.targetRate, r.durationS, r.batchWindowUs])).toEqual([
        [1, 400, 0.3, 0],
        [2, 400, 0.3, 0],
      ]);
      for (const r of report.results) {
        expect(Object.keys(r.correctedLatencyUs!)).toEqual(['p50', 'p90', 'p99', 'p999', 'p9999', 'max']);
        expect(Object.keys(r.uncorrectedLatencyUs!)).toEqual(['p50', 'p90', 'p99', 'p999', 'p9999', 'max']);
        expect(r.completed).toBe(r.scheduled);
        expect(r.scheduled).toBe(120); // 400/s x 0.3 s (a bare number is ms), uniform
        expect(r.roundTrips).toBeGreaterThan(0);
        expect(r.achievedRate).toBeGreaterThan(0);
        // Sent alone on one-in-flight connections: the punctual replay applies, and is never above what was measured.
        expect(r.punctualCorrectedP99Us).toBeGreaterThan(0);
        expect(r.punctualCorrectedP99Us!).toBeLessThanOrEqual(r.correctedLatencyUs!.p99);
        expect(Object.keys(r.connectionWaitUs!)).toEqual(['p50', 'p99', 'max']);
      }
      const hgrms = readdirSync(join(dir, 'h')).sort();
      expect(hgrms).toHaveLength(4);
      expect(hgrms.filter((f) => f.endsWith('-corrected.hgrm'))).toHaveLength(2);
      expect(readFileSync(join(dir, 'h', hgrms[0]!), 'utf8')).toMatch(/Value\s+Percentile\s+TotalCount/);
      expect(io.err).toMatch(/corrected p99 \d+ us \(\d+ us sent on time\), uncorrected p99/);
      const html = readFileSync(join(dir, 'r.html'), 'utf8');
      expect(html).toContain('data-chart="backlog local"');
      expect(html).toContain('data-chart="spectrum local"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a Poisson schedule that draws no command ends at once, and one that draws fewer than the target is not saturated', async () => {
    // Seed 2 draws no arrival in 1 s at 1/s (it hung) and 84 in 1 s at 100/s (called saturated, 200/s skipped).
    expect(await bench('--links', 'direct', '--rate', '1', '--duration', '1s', '--seed', '2', '--json', '-'), io.err).toBe(0);
    const empty = (JSON.parse(io.out) as OpenLoopReport).results[0]!;
    expect([empty.scheduled, empty.sent, empty.completed, empty.unsent, empty.saturated]).toEqual([0, 0, 0, 0, null]);
    const before = io.out.length;
    expect(await bench('--links', 'direct', '--rate', '100,200', '--duration', '1s', '--seed', '2', '--json', '-'), io.err).toBe(0);
    const rows = (JSON.parse(io.out.slice(before)) as OpenLoopReport).results;
    expect(rows.map((r) => r.targetRate)).toEqual([100, 200]);
    expect([rows[0]!.scheduled, rows[0]!.completed, rows[0]!.saturated]).toEqual([84, 84, null]);
  }, 20_000);

  it('--modes seq,mux runs both over the same link; mux takes a window too, and has no punctual replay', async () => {
    const args = ['--links', 'rtt=2ms', '--clients', '1', '--rate', '300', '--duration', '300', '--arrival', 'uniform', '--json', '-'];
    expect(await bench(...args, '--modes', 'seq,mux', '--batch-window', '0,1ms', '--batch', '4'), io.err).toBe(0);
    const rows = (JSON.parse(io.out) as OpenLoopReport).results;
    expect(rows.map((r) => [r.mode, r.batchWindowUs])).toEqual([
      ['seq', 0],
      ['seq', 1000],
      ['mux', 0],
      ['mux', 1000],
    ]);
    for (const r of rows) expect(r.completed).toBe(90);
    expect(rows.map((r) => r.punctualCorrectedP99Us === null)).toEqual([false, true, true, true]);
    // A window gathers up to 4 commands due within 1 ms (every 3.3 ms here: alone): as many writes as commands.
    expect(rows[3]!.batches).toBe(90);
  });

  it('--clients without --rate runs C closed loops (JSON on stdout with --json -)', async () => {
    expect(await bench('--links', 'direct', '--clients', '3', '--duration', '200ms', '--json', '-')).toBe(0);
    const report = JSON.parse(io.out) as OpenLoopReport;
    expect(report.results).toHaveLength(1);
    const r = report.results[0]!;
    expect([r.arrival, r.clients, r.targetRate, r.roundTrips, r.punctualCorrectedP99Us]).toEqual(['closed', 3, null, null, null]);
    expect(r.completed).toBeGreaterThan(10);
    expect(r.correctedLatencyUs).toEqual(r.uncorrectedLatencyUs);
  });
});

describe('runOpenLoopBench options the CLI cannot give', () => {
  it('refuses a drain limit or a duration its timers cannot hold, naming the key', () => {
    expect(() => resolveOpenLoopOptions({ rates: [100], drainLimitUs: -1 })).toThrow(/^drainLimitUs: invalid value -1/);
    expect(() => resolveOpenLoopOptions({ rates: [100], drainLimitUs: 3e12 })).toThrow(/^drainLimitUs: /);
    expect(() => resolveOpenLoopOptions({ rates: [0.001], durationUs: 3e12 })).toThrow(/^--duration: .*at most 1 hour/);
    expect(resolveOpenLoopOptions({ rates: [100], durationUs: 3_600e6 }).drainLimitUs).toBe(7_200e6);
  });
});

describe('Ctrl-C', () => {
  it('stops an open-loop run on time, prints what finished and writes it, marked interrupted, its counts consistent', async () => {
    const child = spawn(process.execPath, ['bin/redis-rtt.js', 'bench', '--links', 'rtt=20ms', '--clients', '1', '--rate', '100', '--duration', '30s', '--format', 'json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let out = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    // Signal once the timed run (not the warm-up) has started and run a while.
    await vi.waitUntil(
      () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited early: ${err}`);
        return /rtt=20ms seq C=1 100\/s/.test(err);
      },
      { timeout: 15_000, interval: 20 },
    );
    await sleep(TIMED_RUN_BEFORE_STOP_MS);
    const t0 = Date.now();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(Date.now() - t0, err).toBeLessThan(3000);
    expect(code).toBe(130);
    expect(err).toMatch(/stopped on request/);
    expect(err).toMatch(/^rtt=20ms seq C=1 +100 /m);
    // The JSON says it was stopped (only a note did), and the stopped run's figures add up.
    const report = JSON.parse(out) as OpenLoopReport;
    expect(report).toMatchObject({ interrupted: true, stoppedBy: 'SIGINT' });
    const [row] = report.results;
    expect(row).toMatchObject({ scheduled: row!.sent + row!.unsent, sent: row!.completed + row!.failed, failed: 0 });
    expect(row!.completed).toBeGreaterThan(0);
    expect(row!.unsent).toBeGreaterThan(0);
    const corrected = row!.correctedLatencyUs!;
    const uncorrected = row!.uncorrectedLatencyUs!;
    for (const p of Object.keys(corrected) as (keyof typeof corrected)[]) expect(corrected[p], p).toBeGreaterThanOrEqual(uncorrected[p]);
    expect(row!.achievedRate).toBeGreaterThan(0);
  }, 20_000);
});

describe('SIGTERM (a CI job\'s timeout, kill, a container stopping)', () => {
  it('stops as Ctrl-C does: what finished is printed, the counter key on the user\'s Redis is deleted, exit 143', async () => {
    await using redis = await startPrivateRedis();
    const probe = new Redis(redis.port!, redis.host!, { lazyConnect: true });
    await probe.connect();
    try {
      const child = spawn(process.execPath, ['bin/redis-rtt.js', 'bench', '--redis', redis.address, '--key-prefix', 'term:', '--links', 'rtt=20ms',
        '--clients', '1', '--rate', '100', '--duration', '30s'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      await vi.waitUntil(
        () => {
          if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited early: ${err}`);
          return /rtt=20ms seq C=1 100\/s/.test(err);
        },
        { timeout: 15_000, interval: 20 },
      );
      await vi.waitUntil(async () => Number(await probe.get('term:counter')) > 0, { timeout: 5000, interval: 20 });
      child.kill('SIGTERM');
      expect(await code, err).toBe(143);
      expect(err).toMatch(/stopped on request/);
      expect(err).toMatch(/^rtt=20ms seq C=1 +100 /m);
      expect(await probe.exists('term:counter')).toBe(0);
    } finally {
      probe.disconnect();
    }
  }, 30_000);
});

describe('Redis gone between runs of a sweep', () => {
  // The next run's counter reset threw: a stack trace, exit 1, and no --json, the finished runs lost.
  it('keeps the runs that finished, writes --json, names the failure, and exits 1 without a stack trace', async () => {
    const redis = await startPrivateRedis();
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-gone-'));
    try {
      const file = join(dir, 'r.json');
      // Two links, one rate: a sweep of rates stops at a saturated one (a loaded machine), and no later run would start.
      const code = bench('--redis', redis.address, '--links', 'local,same-az', '--rate', '100', '--arrival', 'uniform', '--duration', '300', '--json', file);
      await vi.waitUntil(() => io.err.includes('achieved'), { timeout: 15_000, interval: 20 });
      await redis.stop();
      expect(await code, io.err).toBe(1);
      const report = JSON.parse(readFileSync(file, 'utf8')) as OpenLoopReport;
      expect(report.results[0]!.error, io.err).toBeUndefined();
      expect(report.results[0]!.link).toBe('local');
      // Redis went while same-az opened its connections or warmed up (the usual case: the sweep stops, named), or, on a
      // slow stop, inside its timed run (that row FAILED).
      if (report.error === undefined) expect(report.results[1]?.error, io.err).toBeTruthy();
      else {
        expect(report.error).toMatch(/^same-az: /);
        expect(io.err).toContain(`stopped on a failure outside a run: ${report.error}; the runs after it were not started`);
      }
      expect(io.err).not.toMatch(/\n {4}at /);
    } finally {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
