import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { transpileRedisModule } from '../helpers/plain-redis-module.js';

// src/redis as plain JS, so a separate node process can use it and exit without stop().
let outDir = '';
beforeAll(() => {
  outDir = transpileRedisModule('redis-rtt-exit-test-');
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

it('SIGKILLs a still-running private redis when the process exits without stop()', () => {
  const script = `import { startPrivateRedis } from ${JSON.stringify(join(outDir, 'redis/index.js'))};
const r = await startPrivateRedis();
console.log(JSON.stringify({ pid: r.pid }));
process.exit(0);`;
  const file = join(outDir, 'leak.mjs');
  writeFileSync(file, script);
  const out = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
  expect(out.status).toBe(0);
  const { pid } = JSON.parse(out.stdout) as { pid: number };
  // A zombie counts as dead: in a container, PID 1 may be slow to reap orphans.
  let state = '';
  for (let i = 0; i < 50; i++) {
    try {
      state = / \S+\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? '';
    } catch {
      state = 'gone';
    }
    if (state === 'gone' || state === 'Z') break;
    execFileSync('sleep', ['0.02']);
  }
  if (state !== 'gone' && state !== 'Z') process.kill(pid, 'SIGKILL'); // leave no orphan when failing
  expect(['gone', 'Z']).toContain(state);
});
