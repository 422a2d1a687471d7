import { execFile } from 'node:child_process';
import { rawCommands } from '../../src/redis/index.js';

/** One redis-benchmark `--csv` result line (Redis 7: test, rps, then latencies in ms). */
export interface BenchmarkResult {
  test: string;
  rps: number;
  avgMs: number;
  minMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

const COLUMNS = ['test', 'rps', 'avg_latency_ms', 'min_latency_ms', 'p50_latency_ms', 'p95_latency_ms', 'p99_latency_ms', 'max_latency_ms'];

/**
 * The result line of `test` from redis-benchmark `--csv` output. Columns are found by the header's
 * names, so a version that reorders or adds columns still parses; one that lacks a column throws.
 */
export function parseBenchmarkCsv(stdout: string, test: string): BenchmarkResult {
  const rows = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('"'))
    .map((l) => l.split(',').map((cell) => cell.replace(/^"|"$/g, '')));
  const header = rows.find((r) => r[0] === 'test');
  const row = rows.find((r) => r[0] === test);
  if (!header || !row) throw new Error(`redis-benchmark printed no CSV header and "${test}" line: ${JSON.stringify(stdout.slice(0, 300))}`);
  const at = COLUMNS.map((name) => header.indexOf(name));
  const missing = COLUMNS.filter((_, i) => at[i]! < 0);
  if (missing.length > 0) throw new Error(`redis-benchmark's CSV header lacks ${missing.join(', ')}: ${header.join(',')}`);
  const num = (i: number): number => {
    const cell = row[at[i]!]!;
    // A run shorter than redis-benchmark's clock tick (a short warm-up direct) reports rps "inf".
    if (i === 1 && cell === 'inf') return Infinity;
    const x = Number(cell);
    if (!Number.isFinite(x)) throw new Error(`redis-benchmark's ${COLUMNS[i]} is not a number: ${row.join(',')}`);
    return x;
  };
  return { test: row[0]!, rps: num(1), avgMs: num(2), minMs: num(3), p50Ms: num(4), p95Ms: num(5), p99Ms: num(6), maxMs: num(7) };
}

/** The Redis counters that show what a GET run did on the server. */
export interface GetCounters {
  hits: number;
  misses: number;
  errorReplies: number;
}

/** keyspace_hits, keyspace_misses and total_error_replies from `INFO stats` text. */
export function parseGetCounters(info: string): GetCounters {
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
    if (!m) throw new Error(`INFO stats has no ${name}`);
    return Number(m[1]);
  };
  return { hits: field('keyspace_hits'), misses: field('keyspace_misses'), errorReplies: field('total_error_replies') };
}

/**
 * What the server's counters say about a run of `requests` GETs of a key that exists, over
 * `clients` connections pipelining `pipeline` each: undefined when they add up, else the
 * problem. redis-benchmark waits for one reply per request and exits non-zero on a reply it
 * cannot parse, but counts an error reply as a reply; the server counts what it answered.
 * A pipelined run may send up to one pipeline per client more than asked.
 */
export function checkGetRun(before: GetCounters, after: GetCounters, requests: number, clients: number, pipeline: number): string | undefined {
  const hits = after.hits - before.hits;
  const misses = after.misses - before.misses;
  const errors = after.errorReplies - before.errorReplies;
  const most = pipeline === 1 ? requests : requests + clients * pipeline;
  if (misses !== 0 || errors !== 0) return `${misses} GETs missed the key and ${errors} got an error reply`;
  if (hits < requests || hits > most) return `Redis answered ${hits} GETs for ${requests} requests (expected ${pipeline === 1 ? requests : `${requests}-${most}`})`;
  return undefined;
}

export interface BenchmarkRun {
  port: number;
  /** Redis itself, whose counters check the run. */
  redisPort: number;
  requests: number;
  clients: number;
  pipeline: number;
}

/** The key redis-benchmark's GET reads when no -r is given; preload it before the first run. */
export const BENCH_KEY = 'key:__rand_int__';

/** redis-benchmark GET against 127.0.0.1:port, checked against Redis's counters; throws on a failed check. */
export async function runGetBenchmark(run: BenchmarkRun): Promise<BenchmarkResult> {
  const redis = { kind: 'tcp' as const, host: '127.0.0.1', port: run.redisPort };
  const counters = async (): Promise<GetCounters> => parseGetCounters((await rawCommands(redis, [['INFO', 'stats']]))[0]?.text ?? '');
  const before = await counters();
  const argv = ['-h', '127.0.0.1', '-p', String(run.port), '-t', 'get', '-n', String(run.requests), '-c', String(run.clients), '-P', String(run.pipeline), '--csv'];
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile('redis-benchmark', argv, { timeout: 600_000, maxBuffer: 1 << 20 }, (err, out, stderr) => {
      if (err) reject(new Error(`redis-benchmark ${argv.join(' ')} failed: ${stderr || err.message} (install redis-tools)`));
      else resolve(out);
    });
  });
  const result = parseBenchmarkCsv(stdout, 'GET');
  const problem = checkGetRun(before, await counters(), run.requests, run.clients, run.pipeline);
  if (problem) throw new Error(`redis-benchmark through port ${run.port}: ${problem}`);
  return result;
}
