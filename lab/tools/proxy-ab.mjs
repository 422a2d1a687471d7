// redis-benchmark GET, no delay anywhere, through several targets in alternating rounds (one
// target's run after the other's, round after round, so a noisy machine hits them alike):
// direct, HAProxy 2.6 in TCP mode, this tree's proxy, any other redis-rtt build (`--old DIR`) and,
// with `--pipe`, the floor of a Node proxy: a bare pipe that writes each 'data' chunk to the other
// socket and does nothing else (cheaper than stream.pipe(), docs/self-report.md "Fast path"), and,
// with `--toxiproxy`, toxiproxy-server from $TOXIPROXY_SERVER with no toxic (lab/README.md builds it).
// Prints, per shape, each target's median rps (min-max), its ratio to the others and the proxy
// process's CPU per request (from /proc/PID/task/*/schedstat, all threads).
//   npm run build && node lab/tools/proxy-ab.mjs [--rounds 5] [--old /tmp/old] [--no-haproxy]
//       [--proxy-args '--no-tap'] [--pipe] [--toxiproxy] [--shapes 1x1,50x16,10x1,100x1,1000x1] [--requests 20000]
//       [--latency]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PIPE_SOURCE } from './bare-pipe.mjs';
import { HAPROXY_PATH, haproxyConfig } from './haproxy.mjs';
import { median } from '../../dist/numbers/quantiles.js';
import { cliArgv, cpuNs, flag, freePort, waitPort } from './proc.mjs';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  const usage = readFileSync(new URL(import.meta.url), 'utf8').split('\nimport ')[0] ?? '';
  process.stdout.write(`${usage.replaceAll(/^\/\/ ?/gm, '')}\n`);
  process.exit(0);
}
const rounds = Number(flag(args, '--rounds', '5'));
const requests = Number(flag(args, '--requests', '20000'));
const oldDir = flag(args, '--old');
const proxyArgs = flag(args, '--proxy-args', '').split(' ').filter(Boolean);
const withHaproxy = !args.includes('--no-haproxy');
const withDirect = !args.includes('--no-direct');
const withPipe = args.includes('--pipe');
const withToxiproxy = args.includes('--toxiproxy');
const toxiproxyServer = process.env.TOXIPROXY_SERVER;
if (withToxiproxy && !toxiproxyServer) {
  process.stderr.write('--toxiproxy needs TOXIPROXY_SERVER, the path of a toxiproxy-server binary (lab/README.md)\n');
  process.exit(2);
}
// Latency too (redis-benchmark's p50 / p99 / max per run, medians and ranges over rounds): for runs with a delay,
// `--proxy-args '--down 5ms --no-handshake'`, where throughput is not the point.
const withLatency = args.includes('--latency');
const shapes = flag(args, '--shapes', '1x1,50x16').split(',').map((s) => {
  const [c, p] = /** @type {[number, number]} */ (s.split('x').map(Number));
  return { c, p, label: `-c ${c} -P ${p}` };
});
const here = path.resolve(new URL('../..', import.meta.url).pathname);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'proxy-ab-'));
/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { for (const c of children) c.kill('SIGTERM'); rmSync(tmp, { recursive: true, force: true }); process.exit(130); });

/**
 * @param {string} cmd
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} [env]
 */
function start(cmd, argv, env = process.env) {
  const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'], env });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-2000)));
  child.on('exit', (code) => code && code !== 0 && process.stderr.write(`${cmd} exited ${code}: ${err}\n`));
  children.push(child);
  return child;
}

/**
 * @param {number} port
 * @param {number} c
 * @param {number} p
 */
function bench(port, c, p) {
  // Pipelined shapes run p times as many requests, so each run lasts about as long.
  const n = Math.max(requests * p, c * p * 20);
  const out = execFileSync('redis-benchmark', ['-p', String(port), '-t', 'get', '-n', String(n), '-c', String(c), '-P', String(p), '--csv', '-q'], {
    encoding: 'utf8',
  });
  const line = out.trim().split('\n').find((l) => l.startsWith('"GET"'));
  if (!line) throw new Error(`redis-benchmark printed no GET line: ${out}`);
  // redis-benchmark 7's CSV: test, rps, avg, min, p50, p95, p99, max (ms).
  const f = line.split(',').map((x) => Number(x.replaceAll('"', '')));
  return { rps: /** @type {number} */ (f[1]), p50: /** @type {number} */ (f[4]), p99: /** @type {number} */ (f[6]), max: /** @type {number} */ (f[7]), n };
}

const redisPort = await freePort();
start('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no', '--dir', tmp]);
await waitPort(redisPort);
execFileSync('redis-cli', ['-p', String(redisPort), 'set', 'key:__rand_int__', 'x']);

/** @type {{ name: string, port: number, pid: number | undefined }[]} */
const targets = [];
if (withDirect) targets.push({ name: 'direct', port: redisPort, pid: 0 });
if (withHaproxy) {
  const port = await freePort();
  const cfg = path.join(tmp, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig(port, redisPort));
  const child = start(HAPROXY_PATH, ['-db', '-f', cfg]);
  targets.push({ name: 'haproxy', port, pid: child.pid });
}
if (withPipe) {
  const port = await freePort();
  const child = start('node', ['-e', PIPE_SOURCE, String(port), String(redisPort)]);
  targets.push({ name: 'pipe', port, pid: child.pid });
}
if (withToxiproxy) {
  const apiPort = await freePort();
  const port = await freePort();
  // LOG_LEVEL=warn, as lab:vs-toxiproxy runs it: at info it logs every accepted connection.
  const child = start(/** @type {string} */ (toxiproxyServer), ['-host', '127.0.0.1', '-port', String(apiPort)], { ...process.env, LOG_LEVEL: 'warn' });
  await waitPort(apiPort);
  const res = await globalThis.fetch(`http://127.0.0.1:${apiPort}/proxies`, {
    method: 'POST',
    body: JSON.stringify({ name: 'redis', listen: `127.0.0.1:${port}`, upstream: `127.0.0.1:${redisPort}` }),
  });
  if (res.status !== 201) throw new Error(`toxiproxy refused the proxy: ${res.status} ${await res.text()}`);
  targets.push({ name: 'toxiproxy', port, pid: child.pid });
}
/** @type {[string, string][]} */
const builds = [['new', here], ...(oldDir ? /** @type {[string, string][]} */ ([['old', path.resolve(oldDir)]]) : [])];
for (const [name, dir] of builds) {
  const port = await freePort();
  const child = start('node', [...cliArgv(dir), 'proxy', '--upstream', `127.0.0.1:${redisPort}`, '--listen', `127.0.0.1:${port}`, '--compensate', '0', ...proxyArgs]);
  targets.push({ name, port, pid: child.pid });
}
/** @typedef {{ rps: number[], cpu: number[], p50: number[], p99: number[], max: number[] }} Runs rps, CPU ns per request and latency ms, one per round */
/** @type {Map<string, Map<string, Runs>>} shape label -> target name -> runs */
const results = new Map();
try {
  for (const t of targets) await waitPort(t.port);
  for (const shape of shapes) {
    // One warm-up run per target per shape, not counted.
    for (const t of targets) bench(t.port, shape.c, shape.p);
    /** @type {Map<string, Runs>} */
    const byTarget = new Map(targets.map((t) => [t.name, { rps: [], cpu: [], p50: [], p99: [], max: [] }]));
    results.set(shape.label, byTarget);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) {
        const before = cpuNs(t.pid);
        const { rps, p50, p99, max, n } = bench(t.port, shape.c, shape.p);
        const cpu = t.pid ? (cpuNs(t.pid) - before) / n : 0;
        const runs = /** @type {Runs} */ (byTarget.get(t.name));
        runs.rps.push(rps);
        runs.cpu.push(cpu);
        runs.p50.push(p50);
        runs.p99.push(p99);
        runs.max.push(max);
      }
      process.stderr.write(`${shape.label} round ${r + 1}/${rounds} done\n`);
    }
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}

/** @type {[string, string][]} */
const pairs = [];
const names = targets.map((t) => t.name);
if (names.includes('old')) pairs.push(['new', 'old']);
if (names.includes('haproxy')) pairs.push(['new', 'haproxy']);
if (names.includes('pipe')) pairs.push(['new', 'pipe']);
if (names.includes('pipe') && names.includes('haproxy')) pairs.push(['pipe', 'haproxy']);
if (names.includes('toxiproxy')) pairs.push(['new', 'toxiproxy']);
if (names.includes('toxiproxy') && names.includes('pipe')) pairs.push(['pipe', 'toxiproxy']);
if (names.includes('direct')) pairs.push(['haproxy', 'direct'], ['new', 'direct']);
for (const [label, byTarget] of results) {
  console.log(`\nredis-benchmark GET ${label}, ${rounds} alternating rounds`);
  for (const [name, { rps, cpu, p50, p99, max }] of byTarget) {
    const cpuText = cpu[0] ? `  cpu/req ${(median(cpu) / 1000).toFixed(2)} us (${(Math.min(...cpu) / 1000).toFixed(2)}-${(Math.max(...cpu) / 1000).toFixed(2)})` : '';
    const range = (/** @type {number[]} */ v) => `${median(v).toFixed(3)} (${Math.min(...v).toFixed(3)}-${Math.max(...v).toFixed(3)})`;
    console.log(`  ${name.padEnd(8)} ${Math.round(median(rps))} rps (${Math.round(Math.min(...rps))}-${Math.round(Math.max(...rps))})${cpuText}`);
    if (withLatency) console.log(`  ${''.padEnd(8)} ms p50 ${range(p50)}  p99 ${range(p99)}  max ${range(max)}`);
  }
  for (const [a, b] of pairs) {
    const runsA = byTarget.get(a);
    const runsB = byTarget.get(b);
    if (!runsA || !runsB) continue;
    const ra = runsA.rps;
    const rb = runsB.rps;
    const ratios = ra.map((x, i) => x / /** @type {number} */ (rb[i]));
    const cpuRatio = runsB.cpu[0] ? `  cpu/req ratio ${(median(runsA.cpu) / median(runsB.cpu)).toFixed(2)}` : '';
    console.log(`  ${a}/${b} rps ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}, per round)${cpuRatio}`);
  }
}
