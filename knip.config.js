// knip (npm run knip): exports, files and dependencies nothing uses. An export that its own file uses is kept
// (ignoreExportsUsedInFile): knip reports what is dead, not what could be private.
// bin/ and lab/tools/*.mjs import the build (../dist/x.js); knip reads them as importing src/x.ts, so what only the
// launcher or a lab tool uses counts as used.
const fromDist = (text) => text.replace(/(['"])((?:\.\.\/)+)dist\//g, '$1$2src/');

export default {
  // Programs of their own, spawned from the built files: calibrate/pinger.ts runs ping-child.ts; bench forks
  // proxy-process/child.ts for each link's proxy.
  // test/package/consumer/example.ts is a consumer's program: test/package/packed.test.ts compiles it in a fresh project.
  entry: ['src/index.ts', 'src/calibrate/ping-child.ts', 'src/workload/proxy-process/child.ts', 'bin/*.js', 'lab/cli.ts', 'lab/tools/*.mjs', 'test/package/consumer/example.ts'],
  project: ['src/**/*.ts', 'test/**/*.ts', 'lab/**/*.{ts,mjs}', 'bin/*.js'],
  ignoreExportsUsedInFile: true,
  // Programs the tests and tools run, installed by .ci/run (apt), not by npm.
  // tcpdump: lab/tools/wire-truth.mjs only, a lab tool run by hand (as root) and never by CI.
  // taskset: util-linux, which every Debian system has (lab/test/vs-toxiproxy.test.ts puts two processes on one CPU).
  ignoreBinaries: ['redis-server', 'redis-cli', 'redis-benchmark', 'openssl', 'promtool', 'tcpdump', 'taskset'],
  // Run by path (node .../cli.js) against the packed tarball in test/package/packed.test.ts.
  ignoreDependencies: ['publint', '@arethetypeswrong/cli'],
  compilers: { mjs: fromDist, js: fromDist },
};
