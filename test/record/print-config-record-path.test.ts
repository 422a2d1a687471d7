import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../hardening/helpers/cli-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-print-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * docs/cli.md: --print-config "checks what the start checks ... so it exits 2 where the start
 * would". A --record the start cannot open (a missing folder, an existing file, a symlink) printed
 * the configuration and exited 0; the start then exited 2.
 */
it('--print-config exits 2 for a --record path the start cannot open, and creates no trace', async () => {
  const existing = join(dir, 'old.trace');
  writeFileSync(existing, 'x');
  const link = join(dir, 'link.trace');
  symlinkSync(join(dir, 'elsewhere.trace'), link);
  const proxy = ['proxy', '--upstream', '127.0.0.1:1', '--print-config'];
  const cases: { args: string[]; says: string }[] = [
    { args: ['--record', join(dir, 'missing', 't.trace')], says: 'expected a file that can be written (ENOENT)' },
    { args: ['--record', existing], says: 'expected a path that does not exist yet (or add --record-overwrite)' },
    { args: ['--record', link, '--record-overwrite'], says: 'expected a path that is not a symlink' },
  ];
  const results = await Promise.all(cases.map((c) => runCli([...proxy, ...c.args])));
  results.forEach((r, i) => {
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--record: invalid value "${cases[i]!.args[1]}"; ${cases[i]!.says}`);
    expect(r.stdout).toBe('');
  });
  // The start says the same, from its open of the trace.
  const start = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--listen', '127.0.0.1:0', '--compensate', 'off', '--record', existing]);
  expect(start.code, start.stderr).toBe(2);
  expect(start.stderr).toContain('expected a path that does not exist yet (or add --record-overwrite)');
  // What the start can open prints, and --print-config creates nothing.
  const fresh = join(dir, 'new.trace');
  for (const args of [['--record', fresh], ['--record', existing, '--record-overwrite']]) {
    const r = await runCli([...proxy, ...args]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ record: { file: args[1] } });
  }
  expect(existsSync(fresh)).toBe(false);
});

/**
 * The trace was not among the outputs the start checks against each other and against its inputs:
 * on the --stats-json file it was replaced by the snapshot at exit, on the --config file (with
 * --record-overwrite) it replaced the configuration, and `-` made a file named "-".
 */
it('--record on the --stats-json file, on the --config file or `-` exits 2 before the start opens it', async () => {
  const config = join(dir, 'proxy.json');
  const text = JSON.stringify({ upstream: '127.0.0.1:1', listen: '127.0.0.1:0', compensationUs: { up: 0, down: 0 } });
  writeFileSync(config, text);
  const same = join(dir, 'same.out');
  const cases: { args: string[]; says: string }[] = [
    { args: ['--stats-json', same, '--record', same, '--record-overwrite'], says: `--stats-json: invalid value "${same}"; expected a path other than --record's` },
    { args: ['--record', config, '--record-overwrite'], says: `--record: invalid value "${config}"; expected a path other than ${config}, which is read, not written` },
    { args: ['--record', '-'], says: '--record: invalid value "-"; expected a path (- means stdout for --json only)' },
  ];
  for (const printOnly of [[], ['--print-config']]) {
    const results = await Promise.all(cases.map((c) => runCli(['proxy', '--config', config, ...c.args, ...printOnly])));
    results.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(cases[i]!.says);
    });
  }
  expect(readFileSync(config, 'utf8')).toBe(text);
  expect(existsSync(same)).toBe(false);
});

/** docs/cli.md: a bad value in the file exits 2 naming the file and the key path; these named the flag the user never typed. */
it("a config file's record.file or statsJson the start cannot write is named by its key, a flag's by the flag", async () => {
  const existing = join(dir, 'taken.trace');
  writeFileSync(existing, 'x');
  const config = join(dir, 'outputs.json');
  writeFileSync(config, JSON.stringify({ upstream: '127.0.0.1:1', record: { file: existing }, statsJson: dir }));
  const fromFile = await runCli(['proxy', '--config', config, '--stats-json', join(dir, 'ok.json'), '--print-config']);
  expect(fromFile.code, fromFile.stderr).toBe(2);
  expect(fromFile.stderr).toContain(`outputs.json: record.file: invalid value "${existing}"; expected a path that does not exist yet`);
  const stats = await runCli(['proxy', '--config', config, '--record', join(dir, 'fresh.trace'), '--print-config']);
  expect(stats.code, stats.stderr).toBe(2);
  expect(stats.stderr).toContain(`outputs.json: statsJson: invalid value "${dir}"; expected a path whose folder can be written (EISDIR)`);
  const flag = await runCli(['proxy', '--config', config, '--record', existing, '--stats-json', join(dir, 'ok.json'), '--print-config']);
  expect(flag.code, flag.stderr).toBe(2);
  expect(flag.stderr).toContain(`redis-rtt: --record: invalid value "${existing}"`);
});
