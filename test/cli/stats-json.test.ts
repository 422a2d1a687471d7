// proxy --stats-json is written when the proxy stops: a path that cannot take it is refused at start,
// exit 2 naming the flag (docs/cli.md: every output path is checked before the run). It was found
// only at Ctrl-C, with a stack trace and exit 1, the session's snapshot lost.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../hardening/helpers/cli-proxy.js';

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
});
