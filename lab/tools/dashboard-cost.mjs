// What the dashboard costs the proxy (docs/dashboard.md): the proxy's CPU per request (all its threads,
// /proc/PID/task/*/schedstat) under the same redis-benchmark load, in three states. Two proxy processes
// in front of one redis-server: A never has a page; B had one opened and closed before the first round
// (must cost what A does: nothing of the dashboard stays), and in each round is run once more with a page
// open (its event stream read by a plain HTTP client, which costs the proxy what a browser would). Then
// the CPU an open page costs an idle proxy, per second. Every round runs A, B, B with a page, so a loaded
// machine hits them alike; prints medians (min-max) and the load average.
//   npm run build && node lab/tools/dashboard-cost.mjs [--rounds 5] [-n 20000]
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../../dist/numbers/quantiles.js';
import { cpuNs, flag, freePort, waitPort } from './proc.mjs';

const argv = process.argv.slice(2);
const rounds = Number(flag(argv, '--rounds', '5'));
const requests = Number(flag(argv, '-n', '20000'));
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const redisPort = await freePort();
/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
children.push(spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
await waitPort(redisPort);

/** A proxy process with a control endpoint. */
async function startProxyProcess() {
  const [port, controlPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [path.join(here, 'bin/redis-rtt'), 'proxy', '--upstream', `127.0.0.1:${redisPort}`, '--listen', `127.0.0.1:${port}`, '--control', `127.0.0.1:${controlPort}`, '--compensate', '0'],
    { stdio: 'ignore' },
  );
  children.push(child);
  await waitPort(controlPort);
  return { pid: child.pid, port, controlPort };
}

/** @typedef {{ pid: number | undefined, port: number, controlPort: number }} ProxyProcess */

/** @param {ProxyProcess} p @returns {Promise<void>} */
function bench(p) {
  return new Promise((resolve, reject) => {
    const b = spawn('redis-benchmark', ['-p', String(p.port), '-c', '4', '-n', String(requests), '-t', 'get', '-q'], { stdio: 'ignore' });
    b.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`redis-benchmark exited ${code}`))));
  });
}

/** An open page: a client reading /events; resolves with a close function once the first event came. @param {ProxyProcess} p */
function openPage(p) {
  return /** @type {Promise<() => void>} */ (
    new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: p.controlPort, path: '/events', agent: false }, (res) => {
        res.once('data', () => resolve(() => req.destroy()));
        res.resume();
      });
      req.on('error', reject);
    })
  );
}

/** Proxy CPU ns per request over one benchmark run. @param {ProxyProcess} p */
async function perRequestNs(p) {
  const before = cpuNs(p.pid);
  await bench(p);
  return (cpuNs(p.pid) - before) / requests;
}

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
const a = await startProxyProcess();
const b = await startProxyProcess();
/** @type {{ never: number[], after: number[], open: number[] }} */
const figures = { never: [], after: [], open: [] };
/** @type {number[]} */
const loads = [];
// Warm-up (JIT, connections), counted nowhere; B's page opens and closes here.
await bench(a);
await bench(b);
const closeFirst = await openPage(b);
await sleep(2000);
closeFirst();
await sleep(300);
for (let r = 0; r < rounds; r++) {
  loads.push(os.loadavg()[0] ?? 0);
  figures.never.push(await perRequestNs(a));
  figures.after.push(await perRequestNs(b));
  const close = await openPage(b);
  figures.open.push(await perRequestNs(b));
  close();
  await sleep(300);
}
// An idle proxy: CPU per second with no page, then with one page open.
const idle = async (/** @type {boolean} */ page) => {
  const close = page ? await openPage(b) : () => {};
  const before = cpuNs(b.pid);
  await sleep(5000);
  const perSecondMs = (cpuNs(b.pid) - before) / 5 / 1e6;
  close();
  return perSecondMs;
};
const idleNone = await idle(false);
const idleOpen = await idle(true);

const fmt = (/** @type {number[]} */ v) => `${(median(v) / 1000).toFixed(2)} us (${(Math.min(...v) / 1000).toFixed(2)}-${(Math.max(...v) / 1000).toFixed(2)})`;
console.log(`${new Date().toISOString()}  load ${loads.map((l) => l.toFixed(1)).join(' ')}  ${os.cpus().length} cpus`);
console.log(`proxy CPU per GET, redis-benchmark -c 4 -n ${requests}, ${rounds} runs each, median (min-max):`);
console.log(`  A, no page ever opened      ${fmt(figures.never)}`);
console.log(`  B, after a page was closed  ${fmt(figures.after)}`);
console.log(`  B, with a page open         ${fmt(figures.open)}`);
console.log(`idle proxy CPU per second: no page ${idleNone.toFixed(2)} ms, one page open ${idleOpen.toFixed(2)} ms`);
for (const c of children) c.kill('SIGKILL');
