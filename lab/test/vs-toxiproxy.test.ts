import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { rawCommands, startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { parseCells, parseNice, parseRunSeconds, parseShapes, requestsFor, rotated, type Cell } from '../vs-toxiproxy/plan.js';
import { BENCH_KEY, checkGetRun, parseBenchmarkCsv, parseGetCounters, runGetBenchmark } from '../vs-toxiproxy/redis-benchmark.js';
import { cellVerdicts, goalCounts } from '../vs-toxiproxy/goals.js';
import { renderVsToxiproxy } from '../vs-toxiproxy/render.js';
import type { VsToxiproxyReport } from '../vs-toxiproxy/run.js';
import { excessTable, loadWarnings, throughputTable, type ExcessRow, type LatencySample, type LatencyTarget, type ThroughputSample } from '../vs-toxiproxy/summary.js';
import { selfFigures, setProcessNice, toxiproxyPath } from '../vs-toxiproxy/targets.js';
import { preemptions } from '../tools/proc.mjs';

// What redis-benchmark 7.0 prints with --csv (-t get).
const CSV = [
  '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"',
  '"GET","336000.00","0.130","0.016","0.055","0.191","1.535","2.047"',
  '',
].join('\n');

describe('redis-benchmark --csv', () => {
  it('reads the GET line by the header names', () => {
    expect(parseBenchmarkCsv(CSV, 'GET')).toEqual({ test: 'GET', rps: 336000, avgMs: 0.13, minMs: 0.016, p50Ms: 0.055, p95Ms: 0.191, p99Ms: 1.535, maxMs: 2.047 });
  });

  it('follows the header when columns move, and names what is missing or not a number', () => {
    const moved = '"test","p99_latency_ms","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","max_latency_ms"\n"GET","9","100","1","2","3","4","5"\n';
    expect(parseBenchmarkCsv(moved, 'GET')).toMatchObject({ rps: 100, p99Ms: 9, maxMs: 5 });
    expect(() => parseBenchmarkCsv('"test","rps"\n"GET","1"\n', 'GET')).toThrow(/lacks avg_latency_ms, min_latency_ms, p50_latency_ms, p95_latency_ms, p99_latency_ms, max_latency_ms/);
    expect(() => parseBenchmarkCsv(CSV.replace('"1.535"', '"-"'), 'GET')).toThrow(/p99_latency_ms is not a number/);
    expect(() => parseBenchmarkCsv(CSV, 'SET')).toThrow(/no CSV header and "SET" line/);
  });
});

describe('the server-side check of a GET run', () => {
  const at = (hits: number, misses = 0, errorReplies = 0) => ({ hits, misses, errorReplies });

  it('reads the counters from INFO stats', () => {
    expect(parseGetCounters('# Stats\r\nkeyspace_hits:1008\r\nkeyspace_misses:2\r\ntotal_error_replies:3\r\n')).toEqual(at(1008, 2, 3));
    expect(() => parseGetCounters('keyspace_hits:1\r\n')).toThrow(/no keyspace_misses/);
  });

  it('wants one hit per request at -P 1, up to a pipeline per client more when pipelined, and no miss or error', () => {
    expect(checkGetRun(at(10), at(110), 100, 1, 1)).toBeUndefined();
    expect(checkGetRun(at(10), at(109), 100, 1, 1)).toBe('Redis answered 99 GETs for 100 requests (expected 100)');
    expect(checkGetRun(at(0), at(1008), 1000, 3, 16)).toBeUndefined();
    expect(checkGetRun(at(0), at(1049), 1000, 3, 16)).toBe('Redis answered 1049 GETs for 1000 requests (expected 1000-1048)');
    expect(checkGetRun(at(0), at(100, 1), 100, 1, 1)).toBe('1 GETs missed the key and 0 got an error reply');
    expect(checkGetRun(at(0), at(100, 0, 2), 100, 1, 1)).toBe('0 GETs missed the key and 2 got an error reply');
  });
});

describe('plan', () => {
  it('parses cells and shapes, and names the flag and the form on bad input', () => {
    expect(parseCells('1ms:1,20ms:50')).toEqual([
      { delayMs: 1, clients: 1 },
      { delayMs: 20, clients: 50 },
    ]);
    expect(parseShapes('50x16,1x1')).toEqual([
      { clients: 50, pipeline: 16 },
      { clients: 1, pipeline: 1 },
    ]);
    expect(parseShapes('none')).toEqual([]);
    for (const bad of ['1:1', '1.5ms:1', '1ms:0', '1ms:1,1ms:1', '']) {
      expect(() => parseCells(bad), bad).toThrow(ConfigError);
      expect(() => parseCells(bad), bad).toThrow(/--cells: .*DELAYms:CLIENTS/);
    }
    expect(() => parseShapes('50x0')).toThrow(/--shapes: .*CLIENTSxPIPELINE/);
  });

  it('rotates the order by round and cell', () => {
    const t = ['direct', 'redis-rtt', 'toxiproxy'];
    expect(rotated(t, 0, 0)).toEqual(t);
    expect(rotated(t, 1, 0)).toEqual(['redis-rtt', 'toxiproxy', 'direct']);
    expect(rotated(t, 1, 1)).toEqual(['toxiproxy', 'direct', 'redis-rtt']);
    expect(rotated(t, 3, 0)).toEqual(t);
  });

  it('sizes a run from its duration, at least 20 requests per client', () => {
    expect(requestsFor({ delayMs: 20, clients: 1 }, 5)).toBe(248); // 5000 / 20.2
    expect(requestsFor({ delayMs: 1, clients: 50 }, 1)).toBe(41667); // 50 x 1000 / 1.2
    expect(requestsFor({ delayMs: 20, clients: 50 }, 0.001)).toBe(1000);
  });

  it('--min-requests raises a short run to that many, and leaves a longer one as it is', () => {
    expect(requestsFor({ delayMs: 20, clients: 1 }, 4, 1000)).toBe(1000); // 4 s would be 199
    expect(requestsFor({ delayMs: 1, clients: 50 }, 4, 1000)).toBe(166667);
  });
});

describe('the excess table', () => {
  const cell: Cell = { delayMs: 5, clients: 1 };
  const run = (round: number, target: LatencyTarget, p50Ms: number, p99Ms: number, maxMs: number, extra: Partial<LatencySample> = {}): LatencySample => ({
    round,
    cell,
    target,
    requests: 100,
    p50Ms,
    p99Ms,
    maxMs,
    ...extra,
  });

  it('subtracts the same round\'s direct run and L, then takes median and range over rounds', () => {
    const samples = [
      run(0, 'direct', 0.1, 0.2, 0.5),
      run(0, 'redis-rtt', 5.3, 6.2, 9.5, { cpuUsPerRequest: 100, preemptedPerRequest: 0.4, self: { lateP99Us: 400, lateMaxUs: 900 } }),
      run(0, 'toxiproxy', 5.2, 5.8, 6.5, { cpuUsPerRequest: 40, preemptedPerRequest: 0.1 }),
      // A slower round: direct is slower too, and only the difference counts.
      run(1, 'direct', 0.3, 1.2, 3.5),
      run(1, 'redis-rtt', 5.6, 7.4, 10.5, { cpuUsPerRequest: 300, preemptedPerRequest: 0.5, self: { lateP99Us: 600, lateMaxUs: 1900 } }),
      run(1, 'toxiproxy', 5.4, 7.0, 8.5, { cpuUsPerRequest: 60, preemptedPerRequest: 0.3 }),
      run(2, 'direct', 0.1, 0.2, 0.5),
      run(2, 'redis-rtt', 5.2, 6.0, 6.5, { cpuUsPerRequest: 200, preemptedPerRequest: 0.45, self: { lateP99Us: 500, lateMaxUs: 1000 } }),
      run(2, 'toxiproxy', 5.3, 5.9, 6.0, { cpuUsPerRequest: 50, preemptedPerRequest: 0.2 }),
    ];
    const [row] = excessTable(samples, [cell]);
    expect(row!.proxies['redis-rtt']).toEqual({
      p50Ms: { median: 0.2, min: 0.1, max: 0.3 },
      p99Ms: { median: 1.0, min: 0.8, max: 1.2 },
      maxMs: { median: 2.0, min: 1.0, max: 4.0 },
      cpuUsPerRequest: { median: 200, min: 100, max: 300 },
      preemptedPerRequest: { median: 0.45, min: 0.4, max: 0.5 },
    });
    expect(row!.proxies.toxiproxy).toEqual({
      p50Ms: { median: 0.1, min: 0.1, max: 0.2 },
      p99Ms: { median: 0.7, min: 0.6, max: 0.8 },
      maxMs: { median: 0.5, min: 0, max: 1.0 },
      cpuUsPerRequest: { median: 50, min: 40, max: 60 },
      preemptedPerRequest: { median: 0.2, min: 0.1, max: 0.3 },
    });
    // A report from runs that did not count them has no such spread (and no such column).
    const older = excessTable(samples.map(({ preemptedPerRequest: _, ...rest }) => rest), [cell]);
    expect(older[0]!.proxies['redis-rtt'].preemptedPerRequest).toBeUndefined();
    expect(row!.self).toEqual({ lateP99Ms: { median: 0.5, min: 0.4, max: 0.6 }, lateMaxMs: { median: 1, min: 0.9, max: 1.9 } });
  });

  it('carries self.addedUs when the build reports it, and refuses a proxied run without its direct run', () => {
    const self = { lateP99Us: 100, lateMaxUs: 200, addedP99Us: 1500, addedMaxUs: 4000, roundTripP99Us: 2500, roundTripMaxUs: 6000 };
    const [row] = excessTable([run(0, 'direct', 0, 0, 0), run(0, 'redis-rtt', 5, 6, 7, { self }), run(0, 'toxiproxy', 5, 6, 7)], [cell]);
    expect(row!.self.addedP99Ms).toEqual({ median: 1.5, min: 1.5, max: 1.5 });
    expect(row!.self.addedMaxMs).toEqual({ median: 4, min: 4, max: 4 });
    expect(row!.self.roundTripP99Ms).toEqual({ median: 2.5, min: 2.5, max: 2.5 });
    expect(row!.self.roundTripMaxMs).toEqual({ median: 6, min: 6, max: 6 });
    expect(() => excessTable([run(0, 'redis-rtt', 5, 6, 7), run(0, 'toxiproxy', 5, 6, 7)], [cell])).toThrow(/no direct run in round 1 at 5 ms, -c 1/);
  });

  it('reads lateUs and addedUs from /stats self', () => {
    const q = (p99: number, max: number) => ({ p50: 1, p90: 2, p99, max, count: 3, mean: 1 });
    expect(selfFigures({ lateUs: q(10, 20) })).toEqual({ lateP99Us: 10, lateMaxUs: 20 });
    expect(selfFigures({ lateUs: q(10, 20), addedUs: q(30, 40) })).toEqual({ lateP99Us: 10, lateMaxUs: 20, addedP99Us: 30, addedMaxUs: 40 });
    expect(selfFigures({ lateUs: q(10, 20), addedUs: q(30, 40), roundTripAddedUs: q(50, 60) })).toEqual({
      lateP99Us: 10,
      lateMaxUs: 20,
      addedP99Us: 30,
      addedMaxUs: 40,
      roundTripP99Us: 50,
      roundTripMaxUs: 60,
    });
    expect(() => selfFigures(undefined)).toThrow(/no self.lateUs/);
  });
});

describe('the throughput table', () => {
  const shape = { clients: 50, pipeline: 16 };
  const s = (round: number, target: ThroughputSample['target'], rps: number, cpuUsPerRequest?: number): ThroughputSample => ({
    round,
    shape,
    target,
    requests: 1000,
    rps,
    ...(cpuUsPerRequest === undefined ? {} : { cpuUsPerRequest }),
  });

  it('gives rps, CPU and ratios round by round, in a fixed target order', () => {
    const [row] = throughputTable([s(0, 'toxiproxy', 100, 3), s(0, 'redis-rtt', 90, 4), s(0, 'direct', 200), s(1, 'direct', 100), s(1, 'redis-rtt', 60, 6), s(1, 'toxiproxy', 50, 5)], [shape]);
    expect(Object.keys(row!.rps)).toEqual(['direct', 'redis-rtt', 'toxiproxy']);
    expect(row!.rps['redis-rtt']).toEqual({ median: 75, min: 60, max: 90 });
    expect(row!.cpuUsPerRequest['redis-rtt']).toEqual({ median: 5, min: 4, max: 6 });
    expect(row!.cpuUsPerRequest.direct).toBeUndefined();
    // Per round 0.9 and 1.2: the ratio of medians (75 / 75) would hide both.
    expect(row!.ratios).toEqual([
      { of: 'redis-rtt', to: 'toxiproxy', perRound: { median: 1.05, min: 0.9, max: 1.2 } },
      { of: 'redis-rtt', to: 'direct', perRound: { median: 0.53, min: 0.45, max: 0.6 } },
      { of: 'toxiproxy', to: 'direct', perRound: { median: 0.5, min: 0.5, max: 0.5 } },
    ]);
  });

  it('warns about every round that started on a loaded machine', () => {
    expect(loadWarnings([0.2, 1.0, 0.99, 3.456])).toEqual([
      'round 2 started at load average 1.00 (>= 1.0): not a quiet machine, figures for checking only',
      'round 4 started at load average 3.46 (>= 1.0): not a quiet machine, figures for checking only',
    ]);
  });
});

describe("issue 23's goals per cell", () => {
  const at = (median: number) => ({ median, min: median, max: median });
  /** A cell where redis-rtt's and toxiproxy's medians are given; the self-report's p99 as asked. */
  function row(delayMs: number, ours: [number, number, number, number], theirs: [number, number, number, number], selfP99Ms?: number): ExcessRow {
    const e = ([p50, p99, max, cpu]: [number, number, number, number]) => ({ p50Ms: at(p50), p99Ms: at(p99), maxMs: at(max), cpuUsPerRequest: at(cpu) });
    return {
      cell: { delayMs, clients: 1 },
      proxies: { 'redis-rtt': e(ours), toxiproxy: e(theirs) },
      self: { lateP99Ms: at(0), lateMaxMs: at(0), ...(selfP99Ms === undefined ? {} : { roundTripP99Ms: at(selfP99Ms) }) },
    };
  }

  it('meets each goal at its bound and misses it just past', () => {
    // At the bounds: p50 and p99 equal, max + 2 ms, CPU equal, self-report 0.2 ms over a 0.5 ms excess.
    expect(cellVerdicts(row(5, [0.3, 0.5, 4, 100], [0.3, 0.5, 2, 100], 0.7))).toEqual({ p50: true, p99: true, max: true, cpu: true, self: true });
    expect(cellVerdicts(row(5, [0.31, 0.51, 4.01, 101], [0.3, 0.5, 2, 100], 0.72))).toEqual({ p50: false, p99: false, max: false, cpu: false, self: false });
  });

  it('takes a p99 under 0.1 ms as met, twice the CPU at 1 ms, and 30% of a large excess for the self-report', () => {
    const v = cellVerdicts(row(1, [0.05, 0.09, 1, 199], [0.01, 0.02, 1, 100], 0.2));
    expect([v.p99, v.cpu]).toEqual([true, true]);
    expect(cellVerdicts(row(1, [0, 0.09, 1, 201], [0, 0.02, 1, 100])).cpu).toBe(false);
    // 30% of 2.0 ms is 0.6 ms: 2.55 is within, 1.35 (0.65 under) is not.
    expect(cellVerdicts(row(5, [0, 2.0, 1, 1], [0, 2.0, 1, 1], 2.55)).self).toBe(true);
    expect(cellVerdicts(row(5, [0, 2.0, 1, 1], [0, 2.0, 1, 1], 1.35)).self).toBe(false);
  });

  it('judges the self-report on addedUs where a build has no round trips, and not at all without either', () => {
    const r = row(5, [0, 0.5, 1, 1], [0, 0.5, 1, 1]);
    expect(cellVerdicts(r).self).toBeNull();
    expect(cellVerdicts({ ...r, self: { ...r.self, addedP99Ms: at(0.6) } }).self).toBe(true);
    expect(goalCounts([r, row(5, [0, 0.5, 1, 1], [0, 0.4, 1, 1], 0.5)])).toEqual({
      p50: { met: 2, of: 2 },
      p99: { met: 1, of: 2 },
      max: { met: 2, of: 2 },
      cpu: { met: 2, of: 2 },
      self: { met: 1, of: 1 },
    });
  });
});

describe('the report text', () => {
  it('prints the excess table, the self-report beside the client, the throughput ratios and the load', () => {
    const cell: Cell = { delayMs: 1, clients: 50 };
    const direct = { round: 0, cell, requests: 10, p50Ms: 0.1, p99Ms: 0.2, maxMs: 0.3 };
    const latency: LatencySample[] = [
      { ...direct, target: 'direct' },
      { ...direct, target: 'redis-rtt', p50Ms: 1.3, p99Ms: 2.4, maxMs: 9.3, cpuUsPerRequest: 36, preemptedPerRequest: 0.46, self: { lateP99Us: 900, lateMaxUs: 3000 } },
      { ...direct, target: 'toxiproxy', p50Ms: 1.2, p99Ms: 2.2, maxMs: 3.3, cpuUsPerRequest: 30, preemptedPerRequest: 0.12 },
    ];
    const shape = { clients: 1, pipeline: 1 };
    const throughput: ThroughputSample[] = [
      { round: 0, shape, target: 'redis-rtt', requests: 10, rps: 2000, cpuUsPerRequest: 200 },
      { round: 0, shape, target: 'toxiproxy', requests: 10, rps: 1000, cpuUsPerRequest: 150 },
    ];
    const report: VsToxiproxyReport = {
      kind: 'vs-toxiproxy',
      environment: { node: 'v20', redis: '7.0.15', ioredis: '6', redisRtt: '0.1.0', cpus: 2, cpuModel: 'cpu', platform: 'linux', startedAt: '2026-12-01T00:00:00.000Z' },
      toxiproxyVersion: 'v2.12.0',
      rounds: 1,
      loadByRound: [1.5],
      warnings: loadWarnings([1.5]),
      latency: excessTable(latency, [cell]),
      throughput: throughputTable(throughput, [shape]),
      samples: { latency, throughput },
    };
    const text = renderVsToxiproxy(report);
    expect(text).toContain('load average at the start of each round: 1.50');
    expect(text).toContain('warning: round 1 started at load average 1.50');
    expect(text).toMatch(/proxy +p50 excess +p99 excess +max excess +CPU us\/request +preempted\/request/);
    expect(text).toMatch(/1 ms, -c 50 +redis-rtt +0\.200 +1\.200 +8\.00 +36\.0 +0\.46/);
    expect(text).toMatch(/ +toxiproxy +0\.100 +1\.000 +2\.00 +30\.0 +0\.12/);
    expect(text).toContain('(this build has no self.addedUs)');
    expect(text).toMatch(/1 ms, -c 50 +1\.200 +0\.900 +8\.00 +3\.00/);
    expect(text).toMatch(/redis-rtt\/toxiproxy rps, per round +2\.00/);
    // p50 0.2 against 0.1, p99 1.2 against 1.0, max 8.0 against 2.0 + 2, CPU 36 against twice 30; no self.addedUs.
    expect(text).toMatch(/1 ms, -c 50 +missed +missed +missed +met +-/);
    expect(text).toMatch(/cells met +0\/1 +0\/1 +0\/1 +1\/1 +0\/0/);
    expect(text).not.toContain('nice');
    const older = latency.map(({ preemptedPerRequest: _, ...rest }) => rest);
    const olderText = renderVsToxiproxy({ ...report, latency: excessTable(older, [cell]), samples: { latency: older, throughput } });
    expect(olderText).not.toContain('preempted');
    expect(olderText).toMatch(/1 ms, -c 50 +redis-rtt +0\.200 +1\.200 +8\.00 +36\.0\n/);
    expect(renderVsToxiproxy({ ...report, nice: -5 })).toContain('every proxy at nice -5, all its threads; Redis and redis-benchmark at their own');
  });
});

describe('toxiproxy-server path', () => {
  it('comes from TOXIPROXY_SERVER, which must name an executable file', () => {
    expect(() => toxiproxyPath({})).toThrow(/TOXIPROXY_SERVER: invalid value "\(unset\)"; expected the path of an executable toxiproxy-server/);
    const dir = mkdtempSync(join(tmpdir(), 'vs-toxiproxy-test-'));
    try {
      const plain = join(dir, 'not-executable');
      writeFileSync(plain, 'x', { mode: 0o644 });
      expect(() => toxiproxyPath({ TOXIPROXY_SERVER: plain })).toThrow(ConfigError);
      expect(() => toxiproxyPath({ TOXIPROXY_SERVER: dir })).toThrow(/TOXIPROXY_SERVER: invalid value ".*vs-toxiproxy-test-/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(toxiproxyPath({ TOXIPROXY_SERVER: process.execPath })).toBe(process.execPath);
  });
});

describe('a checked redis-benchmark run against a private Redis', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('parses the run when every GET hit the key, and throws when they missed it', async () => {
    const run = { port: redis.port!, redisPort: redis.port!, requests: 200, clients: 2, pipeline: 1 };
    await expect(runGetBenchmark(run)).rejects.toThrow(/200 GETs missed the key/);
    await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: redis.port! }, [['SET', BENCH_KEY, 'xxx']]);
    const r = await runGetBenchmark(run);
    expect(r.test).toBe('GET');
    expect(r.rps).toBeGreaterThan(0);
    expect(r.p50Ms).toBeLessThanOrEqual(r.p99Ms);
    expect(r.p99Ms).toBeLessThanOrEqual(r.maxMs);
  });
});

describe('--nice', () => {
  it('takes an integer from -20 to 19, and names the flag otherwise', () => {
    expect(parseNice('-5')).toBe(-5);
    expect(parseNice('19')).toBe(19);
    expect(parseNice('-20')).toBe(-20);
    for (const bad of ['-21', '20', '1.5', 'x', '']) expect(() => parseNice(bad)).toThrow(/--nice: invalid value .*; expected an integer from -20 to 19/);
  });

  it("sets every thread of a process, threads started before it included", async () => {
    // A Node child: V8's and libuv's threads are up before its first line of JavaScript runs.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const niceOf = (tid: string): number => Number(readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
      const tids = readdirSync(`/proc/${child.pid}/task`);
      expect(tids.length).toBeGreaterThan(1);
      setProcessNice(child.pid!, 7);
      expect(tids.map(niceOf)).toEqual(tids.map(() => 7));
    } finally {
      child.kill();
    }
  });
});

describe('preemptions of a process', () => {
  it('counts the times its threads were switched out while runnable, and 0 without a pid', async () => {
    expect(preemptions(undefined)).toBe(0);
    // Two busy processes on one CPU (the first this process may use): the scheduler must switch them out in turn,
    // each runnable throughout.
    const cpu = /^Cpus_allowed_list:\s*(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]!;
    // Without taskset the spawn fails: the wait below then fails, naming the missing process, instead of the worker.
    const spin = (): ChildProcess => spawn('taskset', ['-c', cpu, process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' }).on('error', () => {});
    const a = spin();
    const b = spin();
    try {
      await vi.waitFor(() => expect(preemptions(a.pid)).toBeGreaterThan(5), { timeout: 10_000, interval: 50 });
    } finally {
      // Reaped before the next file: two spinning processes pinned to this process's CPU would slow its timing checks.
      const exited = [a, b].map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : once(c, 'exit')));
      a.kill('SIGKILL');
      b.kill('SIGKILL');
      await Promise.all(exited);
    }
  });
});

describe('--seconds', () => {
  it('reads a bare number as seconds and a duration in its unit', () => {
    expect(parseRunSeconds('4')).toBe(4);
    expect(parseRunSeconds('2.5')).toBe(2.5);
    expect(parseRunSeconds('500ms')).toBe(0.5);
    expect(parseRunSeconds('3s')).toBe(3);
    expect(() => parseRunSeconds('soon')).toThrow(/--seconds/);
  });
});
