// proxy --stats-json is written when the proxy stops: a path that cannot take it is refused at start,
// exit 2 naming the flag (docs/cli.md: every output path is checked before the run). It was found
// only at Ctrl-C, with a stack trace and exit 1, the session's snapshot lost.
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPrivateRedis } from '../../src/redis/index.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-stats-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('proxy --stats-json', () => {
  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, 'not a folder');
  const cases: [string, string, RegExp][] = [
    ['in a folder that cannot be made', join(aFile, 's.json'), /^redis-rtt: --stats-json: invalid value ".*s\.json"; expected a path whose folder can be written/],
    ['on a folder', dir, /^redis-rtt: --stats-json: invalid value ".*"; expected a path whose folder can be written \(EISDIR\)/],
    ['-', '-', /^redis-rtt: --stats-json: invalid value "-"; expected a path \(- means stdout for --json only\)/],
  ];
  for (const [what, path, message] of cases) {
    it(`${what}: exit 2 at start naming --stats-json, also with --print-config`, async () => {
      // Port 1: nothing listens; the check comes before any connection is tried.
      for (const extra of [[], ['--print-config']]) {
        const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--stats-json', path, ...extra]);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(message);
      }
    });
  }

  it('a start that fails, or --print-config, makes no folder for it; a run that stops writes it there', { timeout: 60_000 }, async () => {
    // The folder was made by the check at start: a --listen already in use left it behind, empty.
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const inUse = `127.0.0.1:${(busy.address() as AddressInfo).port}`;
    const path = join(dir, 'made', 'stats.json');
    await using redis = await startPrivateRedis();
    try {
      const r = await runCli(['proxy', '--upstream', redis.address, '--listen', inUse, '--compensate', '0', '--stats-json', path]);
      expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('address already in use')]);
      expect((await runCli(['proxy', '--upstream', redis.address, '--stats-json', path, '--print-config'])).code).toBe(0);
      expect(existsSync(join(dir, 'made'))).toBe(false);
    } finally {
      await new Promise((done) => busy.close(done));
    }
    const p = await startCliProxy(['--upstream', redis.address, '--compensate', '0', '--stats-json', path]);
    expect(await p.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ totals: expect.any(Object) });
  });
});
