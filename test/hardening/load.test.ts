import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startLoadTarget, type LoadTarget } from './helpers/load-target.js';

const CLIENTS = 1000;
const REQUESTS = 20_000;
const TESTS = ['set', 'get'];
/**
 * redis-benchmark 7.0 opens one connection of its own before the tests (CONFIG GET save, CONFIG
 * GET appendonly, to print the server's persistence settings), then `-c` fresh clients per test.
 */
const BENCHMARK_EXTRA_CONNECTIONS = 1;
const BENCHMARK_EXTRA_COMMANDS = 2;
/** The active connections are sampled this often while redis-benchmark runs. */
const SAMPLE_MS = 50;

interface BenchmarkRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** redis-benchmark in a shell that raises its own open-files limit (it needs one per client). */
function redisBenchmark(host: string, port: number): Promise<BenchmarkRun> {
  const cmd =
    `ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"; ` +
    `exec redis-benchmark -h ${host} -p ${port} -c ${CLIENTS} -n ${REQUESTS} -t ${TESTS.join(',')} --csv`;
  const t0 = Date.now();
  const child = spawn('bash', ['-c', cmd], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 })));
}

function infoField(info: string, field: string): number {
  const m = new RegExp(`^${field}:(\\d+)`, 'm').exec(info);
  if (!m) throw new Error(`INFO has no ${field}`);
  return Number(m[1]);
}

describe(`load: ${CLIENTS} concurrent clients through one proxy with a 1 ms link`, () => {
  let redis: PrivateRedis;
  let target: LoadTarget;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startPrivateRedis({ args: ['--maxclients', '4096'] });
    target = await startLoadTarget(redis.address, 1000, CLIENTS);
    admin = new Redis({ host: redis.host, port: redis.port, lazyConnect: true });
    await admin.connect();
  });
  afterAll(async () => {
    admin?.disconnect();
    await target?.close();
    await redis?.stop();
  });

  it('answers every request: redis-benchmark sees no error, the proxy and Redis count the same', { timeout: 300_000 }, async () => {
    const before = await admin.info('stats');
    let peakActive = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakActive = Math.max(peakActive, (await target.stats()).connections.active);
        await sleep(SAMPLE_MS);
      }
    })();
    const bench = await redisBenchmark(target.host, target.port);
    sampling = false;
    await sampler;

    expect(bench.code, bench.stderr).toBe(0);
    expect(bench.stdout + bench.stderr).not.toMatch(/error/i);
    const rows = bench.stdout.split('\n').filter((l) => /^"(SET|GET)"/.test(l));
    expect(rows.map((r) => r.split(',')[0])).toEqual(['"SET"', '"GET"']);

    // Connections close behind the last reply: wait for all of them to be gone.
    const t0 = Date.now();
    let s = await target.stats();
    await vi.waitUntil(async () => (s = await target.stats()).connections.active === 0, { timeout: 15_000, interval: 50 });
    const drainMs = Date.now() - t0;
    const after = await admin.info('stats');

    const sent = TESTS.length * REQUESTS + BENCHMARK_EXTRA_COMMANDS;
    expect(s.connections).toEqual({ active: 0, total: TESTS.length * CLIENTS + BENCHMARK_EXTRA_CONNECTIONS });
    expect(peakActive).toBeGreaterThanOrEqual(CLIENTS);
    expect(s.totals.commands).toBe(sent);
    expect(s.totals.replies).toBe(sent);
    expect(s.totals.errorReplies).toBe(0);
    expect(s.totals.unparsedBytes).toBe(0);
    expect(s.commands.SET?.count).toBe(REQUESTS);
    expect(s.commands.GET?.count).toBe(REQUESTS);
    // Redis agrees: one upstream connection per client, and it executed what the proxy counted
    // (+1: the INFO that took the first reading is counted in the second).
    expect(infoField(after, 'total_connections_received') - infoField(before, 'total_connections_received')).toBe(
      s.connections.total,
    );
    expect(infoField(after, 'total_commands_processed') - infoField(before, 'total_commands_processed')).toBe(sent + 1);

    console.log(
      `[figure] load: ${CLIENTS} clients x ${TESTS.length} tests, ${sent} requests through one proxy (${target.where}), ` +
        `1 ms link: ${s.totals.replies} answered, 0 errors, redis-benchmark ${bench.ms} ms; peak active ${peakActive}; ` +
        `all ${s.connections.total} connections closed ${drainMs} ms after; ${rows.join(' | ')}`,
    );
  });
});
