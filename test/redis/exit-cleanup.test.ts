import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';

// Transpiles src/redis (and the errors it imports) to plain JS so a separate node process can
// use it and exit without stop(). Type-stripping only: tsc's type check runs elsewhere.
let outDir = '';
beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'redis-rtt-exit-test-'));
  // src/redis reads replies with src/resp's framer.
  const files = [...['src/redis', 'src/resp'].flatMap((d) => readdirSync(d).map((f) => join(d, f))), 'src/errors.ts'].filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const js = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const dest = join(outDir, file.replace(/^src\//, '').replace(/\.ts$/, '.js'));
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, js);
  }
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}');
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
