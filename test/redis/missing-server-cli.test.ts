import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

// The built CLI, as a new user runs it (`npm ci` builds dist/ through the prepare script).
const BIN = resolve(import.meta.dirname, '../../bin/redis-rtt.js');
const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-missing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runDemo(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const json = join(dir, 'report.json');
  const child = spawn(process.execPath, [BIN, 'demo', '--no-html', '--json', json], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    }),
  );
}

it('demo without redis-server says in one line how to install it, and exits 1 without a report', async () => {
  const run = await runDemo({ REDIS_SERVER: join(dir, 'no-redis-server-here') });
  expect(run.code).toBe(1);
  const about = run.stderr.split('\n').filter((line) => /redis-server/.test(line));
  expect(about).toHaveLength(1);
  expect(about[0]).toMatch(/^redis-rtt: redis-server not found at ".*no-redis-server-here"; install it/);
  expect(about[0]).toMatch(/apt-get install redis-server/);
  expect(about[0]).toMatch(/brew install redis/);
  expect(about[0]).toMatch(/REDIS_SERVER/);
  expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(existsSync(join(dir, 'report.json'))).toBe(false);
});
