/**
 * `bench --cluster` and `demo --cluster` stopped with Ctrl-C (SIGINT to the CLI's process group, as a
 * terminal sends it): they stop after the sample in flight, print and write what finished marked
 * interrupted, close their private cluster's redis-servers, and exit 130. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BIN } from '../hardening/helpers/cli-proxy.js';

interface Report {
  rows: { config: string; shape: string; samples: number }[];
  interrupted?: boolean;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of the redis-servers whose parent is `parentPid`, from /proc (Linux). */
function redisChildrenOf(parentPid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parentPid && comm.startsWith('redis-server')) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Runs the CLI in its own process group, sends SIGINT to the group once `ready` matches stderr. */
async function interrupt(args: string[], ready: RegExp): Promise<{ code: number | null; stdout: string; stderr: string; servers: number[] }> {
  const cli = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  cli.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  cli.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => cli.on('close', (c) => resolve(c)));
  try {
    // A private cluster (six redis-servers joined) starts first: under a loaded CI run 60 s was not enough.
    await vi.waitUntil(() => ready.test(stderr), { timeout: 100_000, interval: 20 });
  } catch (err) {
    // The CLI may have ended first (then the group is gone, ESRCH): its stderr says why.
    try {
      process.kill(-cli.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    throw new Error(`never matched ${ready}: ${stderr}`, { cause: err });
  }
  const servers = redisChildrenOf(cli.pid!);
  process.kill(-cli.pid!, 'SIGINT');
  return { code: await exited, stdout, stderr, servers };
}

describe('cluster bench stopped with Ctrl-C', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'redis-rtt-cluster-int-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('bench --cluster: the rows that finished, marked interrupted, in the table and --json; the private cluster gone; exit 130', { timeout: 150_000 }, async () => {
    const json = join(dir, 'bench.json');
    const r = await interrupt(['bench', '--cluster', '--links', 'rtt=1ms', '-n', '20', '--batch', '5', '--repeat', '1000', '--json', json], /sample 2: /);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('stopping after the sample in flight');
    // Each row says how many of the 1000 samples asked for it has.
    expect(r.stderr).toMatch(/^config\s+shape\s+reads\s+us\/op \(min-max\)\s+samples\s+round trips\s/m);
    expect(r.stderr).toMatch(/^rtt=1ms\s+seq SET\s+primaries\s+\S+ \(\S+\)\s+[1-9]\d* of 1000\s/m);
    expect(r.stderr).toMatch(/^interrupted \(Ctrl-C\): only the samples that finished are reported$/m);
    const report = JSON.parse(await readFile(json, 'utf8')) as Report;
    expect(report.interrupted).toBe(true);
    // Every shape had its first timed sample before the second began; none ran all 1000.
    expect(report.rows).toHaveLength(6);
    for (const row of report.rows) {
      expect(row.samples).toBeGreaterThanOrEqual(1);
      expect(row.samples).toBeLessThan(1000);
    }
    expect(r.servers, r.stderr).toHaveLength(6);
    await vi.waitUntil(() => r.servers.every((pid) => !alive(pid)), { timeout: 10_000, interval: 50 });
  });

  it('demo --cluster: the table and the JSON of what finished, marked interrupted; the private cluster gone; exit 130', { timeout: 150_000 }, async () => {
    const json = join(dir, 'demo.json');
    const r = await interrupt(['demo', '--cluster', '--json', json, '--no-html'], /sample 1: /);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('stopping after the sample in flight');
    expect(r.stdout).toMatch(/^interrupted \(Ctrl-C\): only the samples that finished are reported$/m);
    expect(r.stdout).toMatch(/\s1 of 2\s/);
    const report = JSON.parse(await readFile(json, 'utf8')) as Report;
    expect(report.interrupted).toBe(true);
    expect(report.rows.length).toBeGreaterThanOrEqual(1);
    expect(report.rows.length).toBeLessThanOrEqual(6);
    for (const row of report.rows) expect(row.samples).toBe(1);
    expect(r.servers, r.stderr).toHaveLength(6);
    await vi.waitUntil(() => r.servers.every((pid) => !alive(pid)), { timeout: 10_000, interval: 50 });
  });
});
