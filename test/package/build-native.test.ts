/**
 * scripts/build-native.mjs, npm's install step, where the timerfd addon does not build: the install still
 * succeeds and says why in one line, naming the cause (no make, no compiler) rather than node-gyp's closing
 * lines. node-gyp is a stub here (npm_config_node_gyp names it, as npm does) that prints what the real one
 * prints on such a machine and fails.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'redis-rtt-build-native-'));
mkdirSync(join(work, 'scripts'));
mkdirSync(join(work, 'native/timerfd'), { recursive: true });
copyFileSync(join(ROOT, 'scripts/build-native.mjs'), join(work, 'scripts/build-native.mjs'));
writeFileSync(join(work, 'native/timerfd/binding.gyp'), '{}');

afterAll(() => rmSync(work, { recursive: true, force: true }));

const GYP_TAIL = [
  'gyp ERR! System Linux 6.1.0',
  'gyp ERR! command "/usr/bin/node" "node-gyp.js" "rebuild"',
  'gyp ERR! node -v v22.0.0',
  'gyp ERR! node-gyp -v v12.4.0',
  'gyp ERR! $npm_package_name redis-rtt',
  'gyp ERR! $npm_package_version 0.1.0',
  'gyp ERR! not ok ',
];

/** Runs the install step with a node-gyp that prints `stderr` and exits 1; returns what the step printed. */
function install(stderr: string[]): { status: number | null; stderr: string } {
  const stub = join(work, 'node-gyp-stub.cjs');
  writeFileSync(stub, `process.stderr.write(${JSON.stringify(stderr.join('\n') + '\n')}); process.exit(1);\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_node_gyp: stub };
  delete env.REDIS_RTT_NO_NATIVE;
  const r = spawnSync(process.execPath, [join(work, 'scripts/build-native.mjs')], { env, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe.runIf(process.platform === 'linux')('build-native.mjs where the addon does not build', () => {
  it('no make: succeeds, and its one line says "not found: make"', () => {
    const r = install([
      'gyp info it worked if it ends with ok',
      'gyp ERR! build error ',
      'gyp ERR! stack Error: not found: make',
      'gyp ERR! stack at getNotFoundError (which/lib/index.js:16:17)',
      ...GYP_TAIL,
    ]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      'redis-rtt: timerfd alarm not built (not found: make); the scheduler sleeps on a worker thread instead (docs/precision.md)\n',
    );
  });

  it("no C compiler: the line quotes make's complaint, not node-gyp's exit code", () => {
    const r = install([
      'make: cc: No such file or directory',
      'make: *** [timerfd.target.mk:114: Release/obj.target/timerfd/timerfd.o] Error 127',
      'gyp ERR! build error ',
      'gyp ERR! stack Error: `make` failed with exit code: 2',
      ...GYP_TAIL,
    ]);
    expect(r.status).toBe(0);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      'redis-rtt: timerfd alarm not built (make: cc: No such file or directory); the scheduler sleeps on a worker thread instead (docs/precision.md)',
    ]);
  });

  it('REDIS_RTT_NO_NATIVE=1: skips the build, in one line', () => {
    const r = spawnSync(process.execPath, [join(work, 'scripts/build-native.mjs')], {
      env: { ...process.env, REDIS_RTT_NO_NATIVE: '1', npm_config_node_gyp: join(work, 'missing.cjs') },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^redis-rtt: REDIS_RTT_NO_NATIVE=1: timerfd alarm not built; [^\n]*\n$/);
  });
});
