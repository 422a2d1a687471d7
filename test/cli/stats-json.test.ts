// proxy --stats-json is written when the proxy stops: a path that cannot take it is refused at start,
// exit 2 naming the flag (docs/cli.md: every output path is checked before the run). It was found
// only at Ctrl-C, with a stack trace and exit 1, the session's snapshot lost.
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
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

  it('SIGTERM with a pipeline\'s replies in the down delay: the client gets them, the summary and the file count what it got', async () => {
    const path = join(dir, 'drained.json');
    await using redis = await startPrivateRedis();
    const p = await startCliProxy(['--upstream', redis.address, '--down', '200ms', '--no-handshake', '--compensate', '0', '--control', '127.0.0.1:0', '--stats-json', path]);
    const c = new Redis({ host: p.host, port: p.port, lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.ping(); // the client's own handshake answered first
      const before = (await p.stats()).totals.replies;
      const pipeline = c.pipeline();
      for (let i = 0; i < 1000; i++) pipeline.get('k');
      const done = pipeline.exec().then(
        (r) => r?.filter(([err]) => err === null).length ?? 0,
        () => 0,
      );
      // Counted by the tap as they came from Redis: in the 200 ms down delay now.
      await vi.waitFor(async () => expect((await p.stats()).totals.replies).toBe(before + 1000), { timeout: 5000, interval: 10 });
      expect(await p.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(await done).toBe(1000);
      const totals = (JSON.parse(readFileSync(path, 'utf8')) as { totals: { replies: number; bytesDown: number } }).totals;
      expect(totals).toMatchObject({ replies: before + 1000, bytesDown: c.stream.bytesRead });
      expect(p.stderr()).toContain(`replies ${before + 1000} `);
    } finally {
      c.disconnect();
      await p.stop('SIGKILL');
    }
  });
});
