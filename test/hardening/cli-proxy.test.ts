import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import type { StatsSnapshot } from '../../src/stats/types.js';
import { startCliProxy } from './helpers/cli-proxy.js';

const run = promisify(execFile);

// End to end through the real binary: the JSON line, redis-cli through it, /stats, SIGINT, summary, --stats-json.
describe('redis-rtt proxy (the CLI, end to end)', () => {
  let redis: PrivateRedis;
  let dir: string;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    dir = await mkdtemp(join(tmpdir(), 'redis-rtt-cli-'));
  });
  afterAll(async () => {
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prints where it listens, proxies redis-cli, serves /stats, and on SIGINT exits 0 with a summary and --stats-json', async () => {
    const statsFile = join(dir, 'stats.json');
    const p = await startCliProxy([
      '--upstream', redis.address, '--listen', '127.0.0.1:0', '--control', '127.0.0.1:0', '--rtt', '1ms',
      '--stats-json', statsFile,
    ]);
    expect(p.line.event).toBe('listening');
    expect(p.line.listen).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(p.line.control).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(p.line.upstream).toBe(redis.address);

    const cli = (...args: string[]): Promise<{ stdout: string }> =>
      run('redis-cli', ['-h', p.host, '-p', String(p.port), ...args]);
    expect((await cli('SET', 'cli:k', 'v1')).stdout.trim()).toBe('OK');
    expect((await cli('GET', 'cli:k')).stdout.trim()).toBe('v1');
    expect((await cli('INCR', 'cli:n')).stdout.trim()).toBe('1');

    // The last redis-cli's FIN travels through the 1 ms link (and Redis's back) before its
    // connection counts as closed, so wait for it rather than race it.
    let live = await p.stats();
    await vi.waitUntil(async () => (live = await p.stats()).connections.active === 0, { timeout: 5000, interval: 10 });
    // redis-cli sends COMMAND DOCS on connect in interactive mode only; one command per run here.
    expect(live.commands.SET?.count).toBe(1);
    expect(live.commands.GET?.count).toBe(1);
    expect(live.totals.replies).toBe(live.totals.commands);
    expect(live.connections).toEqual({ active: 0, total: 3 });
    expect(live.link).toMatchObject({ upUs: 500, downUs: 500 });

    const exit = await p.stop('SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    const stderr = p.stderr();
    expect(stderr).toContain('SIGINT, closing');
    // The summary names the commands it saw and their counts.
    expect(stderr).toMatch(/SET/);
    expect(stderr).toMatch(/GET/);
    expect(stderr).toMatch(/INCR/);

    const saved = JSON.parse(await readFile(statsFile, 'utf8')) as StatsSnapshot;
    expect(saved.totals.commands).toBe(live.totals.commands);
    expect(saved.totals.replies).toBe(live.totals.replies);
    expect(saved.commands.INCR?.count).toBe(1);
    expect(saved.connections).toEqual({ active: 0, total: 3 });
    expect(saved.link).toEqual(live.link);
  });

  it('SIGTERM also exits 0 with the summary', async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--rtt', '0']);
    expect((await run('redis-cli', ['-h', p.host, '-p', String(p.port), 'PING'])).stdout.trim()).toBe('PONG');
    expect(await p.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(p.stderr()).toContain('SIGTERM, closing');
    expect(p.stderr()).toMatch(/PING/);
  });
});
