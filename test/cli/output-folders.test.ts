// bench checked its outputs by making their folders: a run that failed to start (a --redis that does
// not answer) left them behind, empty. They are made when their output is written now.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPrivateRedis } from '../../src/redis/index.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-output-folders-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench output folders', () => {
  it('a run that fails to start makes none, closed or open loop; a run that finishes makes them', { timeout: 120_000 }, async () => {
    // Port 1: nothing listens.
    const outputs = (root: string): string[] => ['--json', join(root, 'r.json'), '--html', join(root, 'html', 'r.html'), '--hgrm-dir', join(root, 'hgrm')];
    const closed = await runCli(['bench', '--redis', '127.0.0.1:1', '-n', '10', ...outputs(join(dir, 'closed'))], 60_000);
    const open = await runCli(['bench', '--redis', '127.0.0.1:1', '--rate', '100', '--duration', '1s', ...outputs(join(dir, 'open'))], 60_000);
    for (const r of [closed, open]) expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('could not connect to 127.0.0.1:1')]);
    expect(readdirSync(dir)).toEqual([]);
    await using redis = await startPrivateRedis();
    const root = join(dir, 'ran');
    const ok = await runCli(['bench', '--redis', redis.address, '--links', 'local', '-n', '20', '--batch', '10', '--repeat', '1', ...outputs(root)], 100_000);
    expect(ok.code, ok.stderr).toBe(0);
    expect([existsSync(join(root, 'r.json')), existsSync(join(root, 'html', 'r.html')), readdirSync(join(root, 'hgrm')).length > 0]).toEqual([true, true, true]);
  });
});
