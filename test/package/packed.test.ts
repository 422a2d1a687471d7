/**
 * The package as a consumer meets it: `npm pack`, then a fresh project installs the tarball and
 * uses it. Checks the shipped file list against files.txt (a new file shipped is a decision:
 * UPDATE_PACKAGE_FILES=1 rewrites it), runs the bin, compiles and runs the README's TypeScript
 * example (consumer/example.ts, `await using`) against the installed types, and runs publint and
 * arethetypeswrong (esm-only: the package has no CommonJS entry).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const FILES_LIST = join(HERE, 'files.txt');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs = 120_000): Promise<Run> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

let work: string;
let tarball: string;
let shipped: string[];
let consumer: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'redis-rtt-pack-'));
  // The build is npm test's (pretest); --ignore-scripts keeps pack from building again.
  const packed = await run(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT);
  expect(packed.code, packed.stderr).toBe(0);
  const info = (JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[])[0]!;
  tarball = join(work, info.filename);
  shipped = info.files.map((f) => f.path).sort();
  consumer = join(work, 'consumer');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // ioredis is the example's own client; @types/node as any TypeScript project has it. --prefer-offline:
  // after `npm ci`, npm's cache holds every version the lock file names.
  const ioredis = JSON.parse(readFileSync(join(ROOT, 'node_modules/ioredis/package.json'), 'utf8')).version as string;
  const typesNode = JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')).version as string;
  const installed = await run(
    NPM,
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball, `ioredis@${ioredis}`, `@types/node@${typesNode}`],
    consumer,
  );
  expect(installed.code, installed.stderr).toBe(0);
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package, installed into a fresh project', () => {
  it('ships exactly the files in test/package/files.txt', () => {
    if (process.env.UPDATE_PACKAGE_FILES) writeFileSync(FILES_LIST, shipped.join('\n') + '\n');
    const expected = readFileSync(FILES_LIST, 'utf8').trim().split('\n');
    const extra = shipped.filter((f) => !expected.includes(f));
    const missing = expected.filter((f) => !shipped.includes(f));
    // A stale file in dist/ (its source gone) ships too: rm -rf dist && npm run build.
    expect({ extra, missing }, 'a change to what ships: UPDATE_PACKAGE_FILES=1 npx vitest run test/package, then review the diff').toEqual({ extra: [], missing: [] });
    expect(shipped.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
  });

  it.runIf(process.platform === 'linux')("built its timerfd alarm at install, and the installed library's scheduler sleeps on it", async () => {
    expect(existsSync(join(consumer, 'node_modules/redis-rtt/native/timerfd/build/Release/timerfd.node'))).toBe(true);
    // Not an export: the file as installed, by path.
    const scheduler = pathToFileURL(join(consumer, 'node_modules/redis-rtt/dist/link/scheduler.js')).href;
    const probe = `import { PreciseScheduler } from '${scheduler}'; const s = new PreciseScheduler(); console.log(s.wakeKindInUse); s.close();`;
    const r = await run(process.execPath, ['--input-type=module', '-e', probe], consumer);
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: 'timerfd\n' });
  });

  it("its docs' links resolve in the package, but for what README says is the clone's (screenshots, test/, lab/, src/)", () => {
    const links: string[] = [];
    for (const md of shipped.filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(join(consumer, 'node_modules/redis-rtt', md), 'utf8');
      for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(m[1]!)) continue;
        const target = posix.normalize(posix.join(posix.dirname(md), m[1]!)).replace(/\/$/, '');
        if (/^(test|lab|src)\//.test(target) || target.endsWith('.png')) continue;
        if (!shipped.some((f) => f === target || f.startsWith(`${target}/`))) links.push(`${md} -> ${m[1]}`);
      }
    }
    expect(links, "ship the file, or say in README's install part that the link is the clone's").toEqual([]);
  });

  it('every source map carries the sources it names (none are shipped)', () => {
    const map = JSON.parse(readFileSync(join(consumer, 'node_modules/redis-rtt/dist/index.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
    expect(map.sources).toEqual(['../src/index.ts']);
    expect(map.sourcesContent?.[0]).toBe(readFileSync(join(ROOT, 'src/index.ts'), 'utf8'));
  });

  it('runs its bin: npx redis-rtt --version', async () => {
    const r = await run('npx', ['--no-install', 'redis-rtt', '--version'], consumer);
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it.runIf((process.features as { require_module?: boolean }).require_module === true)(
    'loads from CommonJS with require() where Node loads ESM synchronously (README)',
    async () => {
      writeFileSync(join(consumer, 'require.cjs'), "const { startProxy, ConfigError } = require('redis-rtt');\nconsole.log(typeof startProxy, typeof ConfigError);\n");
      const r = await run(process.execPath, [join(consumer, 'require.cjs')], consumer);
      expect(r, r.stderr).toMatchObject({ code: 0, stdout: 'function function\n' });
    },
  );

  it("type-checks and runs the README's TypeScript example (await using) against the installed types", async () => {
    const example = readFileSync(join(HERE, 'consumer/example.ts'), 'utf8');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('```ts\n' + example + '```');
    copyFileSync(join(HERE, 'consumer/example.ts'), join(consumer, 'example.ts'));
    copyFileSync(join(HERE, 'consumer/tsconfig.json'), join(consumer, 'tsconfig.json'));
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', consumer], consumer);
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
    const r = await run(process.execPath, [join(consumer, 'out/example.js')], consumer, 60_000);
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: '1\n' });
  });

  it('type-checks where docs/api.md says it does: bundler resolution, and nodenext from CommonJS (require) and ESM with the schema', async () => {
    const use = "const options: ProxyOptions = { upstream: '127.0.0.1:6379' };\nexport const start = () => startProxy(options);\n";
    writeFileSync(join(consumer, 'from-cjs.cts'), `import { startProxy, type ProxyOptions } from 'redis-rtt';\n${use}`);
    const esm = `import { startProxy, type ProxyOptions } from 'redis-rtt';\nimport schema from 'redis-rtt/proxy-options.schema.json' with { type: 'json' };\n${use}export const title: unknown = schema.title;\n`;
    writeFileSync(join(consumer, 'from-esm.mts'), esm);
    // skipLibCheck: the declarations' own check is the strictest test's (below); this one is about resolution.
    const base = { target: 'ES2022', lib: ['ES2022'], types: ['node'], strict: true, resolveJsonModule: true, skipLibCheck: true, noEmit: true };
    const configs = {
      'tsconfig.bundler.json': { compilerOptions: { ...base, module: 'preserve', moduleResolution: 'bundler' }, files: ['from-esm.mts'] },
      'tsconfig.nodenext.json': { compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' }, files: ['from-cjs.cts', 'from-esm.mts'] },
    };
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const runs = await Promise.all(
      Object.entries(configs).map(([name, config]) => {
        writeFileSync(join(consumer, name), JSON.stringify(config));
        return run(process.execPath, [tsc, '-p', join(consumer, name)], consumer);
      }),
    );
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it("its declarations type-check in a consumer's strictest settings: exactOptionalPropertyTypes, no skipLibCheck", async () => {
    writeFileSync(join(consumer, 'all-types.ts'), "import type * as api from 'redis-rtt';\nexport type Api = typeof api;\n");
    const options = {
      ...{ target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'ESNext.Disposable'], types: ['node'] },
      ...{ strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false, noEmit: true },
    };
    writeFileSync(join(consumer, 'tsconfig.strictest.json'), JSON.stringify({ compilerOptions: options, files: ['all-types.ts'] }));
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(consumer, 'tsconfig.strictest.json')], consumer);
    // ioredis's own declarations import redis-errors, which has no types: its error, not ours.
    const errors = tsc.stdout.split('\n').filter((l) => /error TS\d+/.test(l) && !l.startsWith('node_modules/ioredis/'));
    expect(errors).toEqual([]);
  });

  it('passes publint (strict) and arethetypeswrong --profile esm-only', async () => {
    const publint = await run(process.execPath, [join(ROOT, 'node_modules/publint/src/cli.js'), 'run', tarball, '--strict'], ROOT);
    expect(publint.code, publint.stdout + publint.stderr).toBe(0);
    const attwBin = join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js');
    expect(existsSync(attwBin)).toBe(true);
    const attw = await run(process.execPath, [attwBin, tarball, '--profile', 'esm-only', '--format', 'ascii'], ROOT);
    expect(attw.code, attw.stdout + attw.stderr).toBe(0);
  });
});
