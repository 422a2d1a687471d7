// The first requests of 50 fresh connections, which wait for every connection set-up before them
// (docs/precision.md, "The 50-client maxima"): redis-benchmark GET -c 50 -n 100 (two requests per
// connection) and -n 20000, no delay, through direct Redis, this tree's proxy, another redis-rtt
// build (`--old DIR`), a bare Node pipe (`--pipe`, lab/tools/bare-pipe.mjs: what Node itself costs) and
// toxiproxy (TOXIPROXY_SERVER), alternating target by target and round by
// round so a loaded machine hits them alike. Prints per target the median (min-max) over every
// run of max and p50, the -n 20000 max, and each proxy's CPU per connection (all threads, from
// /proc/PID/task/*/schedstat) with the load average at each round's start.
// `--warm N`: unrecorded bursts per target before the first round (default 3). A fresh Node proxy
// runs its set-up code in baseline code and compiles it while the bursts go on: how many bursts it
// has seen decides its max (docs/precision.md, "The set-up burst is the JIT's warm-up").
// `--down-ms L`: a one-way delay of L ms toward the clients, on redis-rtt (`--down Lms`) and toxiproxy (a
// downstream latency toxic) alike, not on the pipe; each figure is then the excess over L.
// `--gc`: the Node targets run with --trace-gc, and a second table gives their young-generation
// collections over the measured rounds (after the warm-up): how many, their pauses' sum per 1000
// connections, p99 and max (docs/precision.md, "Closed connections and the scavenger").
//   npm run build && node lab/tools/setup-burst.mjs [--old DIR] [--pipe] [--proxy-args '--no-tap'] [--rounds 5] [--runs 5] [--warm 3]
//       [--down-ms 5] [--long 20000] [--gc]
import { spawn, execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../../dist/numbers/quantiles.js';
import { PIPE_SOURCE } from './bare-pipe.mjs';
import { cliArgv, cpuNs, flag, freePort } from './proc.mjs';

const argv = process.argv.slice(2);
const rounds = Number(flag(argv, '--rounds', '5'));
const runs = Number(flag(argv, '--runs', '5'));
const old = flag(argv, '--old');
const warm = Number(flag(argv, '--warm', '3'));
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENTS = 50;
const proxyArgs = (flag(argv, '--proxy-args') ?? '').split(' ').filter(Boolean);
const downMs = Number(flag(argv, '--down-ms', '0'));
const longRequests = Number(flag(argv, '--long', '20000'));
const withGc = argv.includes('--gc');
const nodeFlags = withGc ? ['--trace-gc'] : [];
/** Scavenge pauses (ms) per Node target's pid, from its --trace-gc lines; emptied after the warm-up. */
/** @type {Map<number, number[]>} */
const scavenges = new Map();

/**
 * Collects a Node target's scavenge pauses from its stdout (--trace-gc prints a line per collection,
 * "... Scavenge 35.8 (58.1) -> 29.9 (60.3) MB, pooled: 0 MB, 7.51 / 0.00 ms ...").
 * @param {import('node:child_process').ChildProcess} child
 */
function watchGc(child) {
  /** @type {number[]} */
  const pauses = [];
  scavenges.set(/** @type {number} */ (child.pid), pauses);
  let rest = '';
  child.stdout?.on('data', (d) => {
    const lines = (rest + String(d)).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) {
      const m = / Scavenge .*?MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/.exec(l);
      if (m) pauses.push(Number(m[1]));
    }
  });
}

const children = [];
const redisPort = await freePort();
children.push(spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
await new Promise((r) => setTimeout(r, 300));

/**
 * redis-benchmark's CSV line for GET: p50 and max in ms.
 * @param {number} port
 * @param {number} requests
 * @returns {{ p50: number, max: number }}
 */
function bench(port, requests) {
  const out = execFileSync('redis-benchmark', ['-h', '127.0.0.1', '-p', String(port), '-t', 'get', '-n', String(requests), '-c', String(CLIENTS), '-P', '1', '--csv'], { encoding: 'utf8' });
  const f = (out.trim().split('\n').pop() ?? '').split(',').map((s) => Number(s.replaceAll('"', '')));
  return { p50: f[4] ?? NaN, max: f[7] ?? NaN };
}

/**
 * A redis-rtt proxy from a built tree, no delay.
 * @param {string} tree
 * @returns {Promise<{ port: number, pid: number | undefined }>}
 */
async function redisRtt(tree) {
  const child = spawn(process.execPath, [...nodeFlags, ...cliArgv(tree), 'proxy', '--upstream', `127.0.0.1:${redisPort}`, '--listen', '127.0.0.1:0', '--up', '0', '--down', `${downMs}ms`, '--compensate', 'off', '--no-handshake', ...proxyArgs], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  // The listening line is the first line that is JSON (--trace-gc may print before it).
  /** @type {{ listen: string }} */
  const line = await new Promise((r) => {
    let out = '';
    const onData = (/** @type {Buffer} */ d) => {
      out += String(d);
      const json = out.split('\n').find((l) => l.startsWith('{') && l.endsWith('}'));
      if (json === undefined) return;
      child.stdout.off('data', onData);
      r(JSON.parse(json));
    };
    child.stdout.on('data', onData);
  });
  if (withGc) watchGc(child);
  else child.stdout.resume();
  return { port: Number(line.listen.split(':').pop()), pid: child.pid };
}

/** @type {{ name: string, port: number, pid: number | undefined }[]} */
const targets = [{ name: 'direct', port: redisPort, pid: undefined }];
targets.push({ name: 'redis-rtt', ...(await redisRtt(here)) });
if (old) targets.push({ name: `old (${path.basename(old)})`, ...(await redisRtt(old)) });
if (argv.includes('--pipe')) {
  const port = await freePort();
  const pipe = spawn(process.execPath, [...nodeFlags, '-e', PIPE_SOURCE, String(port), String(redisPort)], { stdio: ['ignore', withGc ? 'pipe' : 'ignore', 'ignore'] });
  children.push(pipe);
  if (withGc) watchGc(pipe);
  await new Promise((r) => setTimeout(r, 300));
  targets.push({ name: 'bare Node pipe', port, pid: pipe.pid });
}
if (process.env.TOXIPROXY_SERVER) {
  const port = await freePort();
  const api = await freePort();
  const tox = spawn(process.env.TOXIPROXY_SERVER, ['-host', '127.0.0.1', '-port', String(api)], { stdio: 'ignore', env: { ...process.env, LOG_LEVEL: 'warn' } });
  children.push(tox);
  await new Promise((r) => setTimeout(r, 500));
  await globalThis.fetch(`http://127.0.0.1:${api}/proxies`, { method: 'POST', body: JSON.stringify({ name: 'redis', listen: `127.0.0.1:${port}`, upstream: `127.0.0.1:${redisPort}` }) });
  if (downMs > 0) {
    const toxic = { name: 'down', type: 'latency', stream: 'downstream', attributes: { latency: downMs, jitter: 0 } };
    await globalThis.fetch(`http://127.0.0.1:${api}/proxies/redis/toxics`, { method: 'POST', body: JSON.stringify(toxic) });
  }
  targets.push({ name: 'toxiproxy', port, pid: tox.pid });
}

/** The delay a target adds on purpose: L for the two proxies with a delay, 0 for direct and the pipe. */
const delayOf = (/** @type {{ name: string }} */ t) => (t.name === 'direct' || t.name === 'bare Node pipe' ? 0 : downMs);

// Warm-up: a fresh Node proxy runs its first set-ups unoptimized.
for (let i = 0; i < warm; i++) for (const t of targets) bench(t.port, 100);
for (const pauses of scavenges.values()) pauses.length = 0;
/** Connections each target saw in the measured rounds. */
const measuredConnections = rounds * (runs * CLIENTS + CLIENTS);
/** @typedef {{ max: number[], p50: number[], max20k: number[], cpuUs: number[] }} Figures */
/** @type {Map<string, Figures>} */
const res = new Map(targets.map((t) => [t.name, { max: [], p50: [], max20k: [], cpuUs: [] }]));
/** @param {string} name */
const figures = (name) => /** @type {Figures} */ (res.get(name));
/** @type {number[]} */
const loads = [];
for (let round = 0; round < rounds; round++) {
  loads.push(os.loadavg()[0] ?? NaN);
  const order = round % 2 ? [...targets].reverse() : targets;
  /** @type {Map<string, number>} */
  const cpu = new Map();
  for (let k = 0; k < runs; k++) {
    for (const t of order) {
      const before = t.pid ? cpuNs(t.pid) : 0;
      const b = bench(t.port, 100);
      if (t.pid) cpu.set(t.name, (cpu.get(t.name) ?? 0) + cpuNs(t.pid) - before);
      figures(t.name).max.push(b.max - delayOf(t));
      figures(t.name).p50.push(b.p50 - delayOf(t));
    }
  }
  for (const t of order) {
    if (t.pid) figures(t.name).cpuUs.push((cpu.get(t.name) ?? 0) / 1000 / (runs * CLIENTS));
    figures(t.name).max20k.push(bench(t.port, longRequests).max - delayOf(t));
  }
}
/** @param {number[]} a */
const fmt = (a) => (a.length ? `${median(a).toFixed(1)} (${Math.min(...a).toFixed(1)}-${Math.max(...a).toFixed(1)})` : '-');
const over = downMs > 0 ? `, excess over the ${downMs} ms delay (proxies)` : '';
console.log(`${new Date().toISOString()}, load average ${loads.map((l) => l.toFixed(1)).join(' / ')} at the round starts, ${rounds} rounds x ${runs} runs after ${warm} warm-up bursts${over}`);
console.log(`| target | -c 50 -n 100 max, ms | -c 50 -n 100 p50, ms | -c 50 -n ${longRequests} max, ms | CPU us per connection (-n 100, per round) |`);
console.log('|---|---|---|---|---|');
for (const [name, r] of res) console.log(`| ${name} | ${fmt(r.max)} | ${fmt(r.p50)} | ${fmt(r.max20k)} | ${fmt(r.cpuUs)} |`);
if (withGc) {
  // Let the last collections' lines arrive.
  await new Promise((r) => setTimeout(r, 200));
  console.log(`\nScavenges over the measured rounds (${measuredConnections} connections per target)`);
  console.log('| target | scavenges | pause sum per 1000 connections, ms | p99 pause, ms | max pause, ms |');
  console.log('|---|---|---|---|---|');
  for (const t of targets) {
    const pauses = t.pid === undefined ? undefined : scavenges.get(t.pid);
    if (pauses === undefined) continue;
    const sorted = [...pauses].sort((a, b) => a - b);
    const sum = pauses.reduce((a, b) => a + b, 0);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? NaN;
    console.log(`| ${t.name} | ${pauses.length} | ${((sum * 1000) / measuredConnections).toFixed(1)} | ${p99.toFixed(2)} | ${(sorted.at(-1) ?? NaN).toFixed(2)} |`);
  }
}
for (const c of children) c.kill();
