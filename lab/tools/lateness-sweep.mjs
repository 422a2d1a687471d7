// The proxy's own lateness per RTT and client count: redis-benchmark GET through `redis-rtt proxy
// --rtt X` (default flags otherwise) at each RTT, -c 1 and -c 50, and per cell /stats `self`
// (lateUs p50/p99/max, arrival lag, loop delay, GC), the proxy's CPU (% of one core while the
// benchmark ran) and the load average. The proxy runs with lab/tools/lateness-diag.mjs preloaded,
// which splits lateness by path (a timer-thread wake came before the delivery, or the loop was
// polling), times the thread's wakes themselves and counts the late deliveries (> 100 us) a GC
// pause overlapped. runq% is the share of the time the proxy's main thread was runnable but not running
// (/proc schedstat): other processes held the cores then. `--old DIR` (a built redis-rtt tree)
// runs beside this tree, proxy by proxy in alternating order; `--variant NAME:ENV=V[,ENV=V]`
// (repeatable) runs this tree again with the diag's tuning variables (LATENESS_SPIN_US,
// LATENESS_LINGER_US; LATENESS_NODE_ARGS: flags for node itself). `rt ms` is what each client
// saw per request (clients / rps): a change that only moves waiting from deliveries into the
// arrival stamps lowers lateUs but not this. Docs: docs/precision.md "The proxy's own lateness".
// Under a minute per build with the defaults.
//   npm run lab:lateness -- [--rtts 0.2,1.2,5,20,85] [--clients 1,50] [--seconds 3] [--rounds 1]
//       [--old /tmp/base] [--variant spin4ms:LATENESS_SPIN_US=4000] [--proxy-args '...']
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { cpuNs, flag, freePort, waitPort } from './proc.mjs';

const args = process.argv.slice(2);
if (args.includes('--help')) {
  process.stdout.write(String(readFileSync(new URL(import.meta.url), 'utf8').split('\nimport ')[0]).replaceAll('// ', '') + '\n');
  process.exit(0);
}
const rtts = flag(args, '--rtts', '0.2,1.2,5,20,85').split(',').map(Number);
const clients = flag(args, '--clients', '1,50').split(',').map(Number);
const seconds = Number(flag(args, '--seconds', '3'));
const rounds = Number(flag(args, '--rounds', '1'));
const proxyArgs = flag(args, '--proxy-args', '').split(' ').filter(Boolean);
const here = path.resolve(new URL('../..', import.meta.url).pathname);
const diag = path.join(here, 'lab/tools/lateness-diag.mjs');
const oldDir = flag(args, '--old');
/** @typedef {Record<string, string>} Env variables for one build's proxy (the diag's tuning) */
/** @type {[string, string, Env][]} name, tree, env */
const builds = [['new', here, {}], ...(oldDir ? /** @type {[string, string, Env][]} */ ([['old', path.resolve(oldDir), {}]]) : [])];
args.forEach((a, i) => {
  if (a !== '--variant') return;
  const [name = '', vars = ''] = flag(args.slice(i), '--variant', '').split(':');
  builds.push([name, here, Object.fromEntries(vars.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))]);
});
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lateness-'));
/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
const stopAll = () => {
  for (const c of children) {
    c.kill('SIGTERM');
    if (c.connected) c.disconnect();
  }
  rmSync(tmp, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => (stopAll(), process.exit(130)));

/**
 * The main thread's run-queue wait (ns runnable but not running) and involuntary switches.
 * @param {number | undefined} pid
 */
function mainThreadWait(pid) {
  const waitNs = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]);
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return { waitNs, preempted: Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1]) };
}

/**
 * redis-benchmark GET rps.
 * @param {number} port
 * @param {number} c
 * @param {number} n
 */
function bench(port, c, n) {
  const out = execFileSync('redis-benchmark', ['-p', String(port), '-t', 'get', '-n', String(n), '-c', String(c), '--csv', '-q'], { encoding: 'utf8' });
  const line = out.trim().split('\n').find((l) => l.startsWith('"GET"'));
  if (!line) throw new Error(`redis-benchmark printed no GET line: ${out}`);
  return Number(/** @type {string} */ (line.split(',')[1]).replaceAll('"', ''));
}

/** Requests for about `seconds` of traffic (at least 60 round trips per client-run). */
/** @type {(rttMs: number, c: number) => number} */
const requestsFor = (rttMs, c) => Math.max(60, Math.min(seconds * 30_000, Math.ceil((seconds * c * 1000) / (rttMs + 0.15))));

/**
 * @param {string} dir
 * @param {Env} env
 * @param {number} redisPort
 * @param {number} rttMs
 */
async function startProxy(dir, env, redisPort, rttMs) {
  const [port, control] = [await freePort(), await freePort()];
  const argv = [...(env.LATENESS_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', diag, path.join(dir, 'bin/redis-rtt.js'), 'proxy', '--upstream', `127.0.0.1:${redisPort}`];
  argv.push('--listen', `127.0.0.1:${port}`, '--control', `127.0.0.1:${control}`, '--rtt', `${rttMs}ms`, ...proxyArgs);
  const child = spawn('node', argv, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, ...env, LATENESS_DIST: path.join(dir, 'dist') } });
  let err = '';
  child.stderr?.on('data', (d) => (err = (err + d).slice(-2000)));
  child.on('exit', (code) => code && process.stderr.write(`proxy exited ${code}: ${err}\n`));
  children.add(child);
  await waitPort(port);
  await waitPort(control);
  /** @type {(cmd: string) => Promise<any>} the diag's answer */
  const ask = (cmd) => new Promise((r) => (child.once('message', r), child.send({ cmd })));
  // A fresh connection per request: a kept-alive one may have been closed by the server meanwhile.
  /** @type {(method: string, p: string) => Promise<any>} the parsed JSON body */
  const http = (method, p) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: control, path: p, method, agent: false }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(JSON.parse(body || '{}')));
      });
      req.on('error', reject);
      req.end();
    });
  return { child, port, ask, http, stop: () => (child.kill('SIGTERM'), child.connected && child.disconnect(), children.delete(child)) };
}

/**
 * @param {Awaited<ReturnType<typeof startProxy>>} proxy
 * @param {number} rttMs
 * @param {number} c
 */
async function cell(proxy, rttMs, c) {
  // A short warm-up run (the forwarding path's JIT, the connections' first round trips), then reset.
  bench(proxy.port, c, Math.max(c * 4, Math.ceil(requestsFor(rttMs, c) / 5)));
  await proxy.http('POST', '/reset');
  await proxy.ask('reset');
  const load = /** @type {number} */ (os.loadavg()[0]);
  const cpu0 = cpuNs(proxy.child.pid);
  const wait0 = mainThreadWait(proxy.child.pid);
  const t0 = process.hrtime.bigint();
  const rps = bench(proxy.port, c, requestsFor(rttMs, c));
  const wallNs = Number(process.hrtime.bigint() - t0);
  const cpuPct = ((cpuNs(proxy.child.pid) - cpu0) / wallNs) * 100;
  const wait1 = mainThreadWait(proxy.child.pid);
  const runqPct = ((wait1.waitNs - wait0.waitNs) / wallNs) * 100;
  const preemptedPerS = ((wait1.preempted - wait0.preempted) / wallNs) * 1e9;
  const self = (await proxy.http('GET', '/stats')).self;
  return { rps, cpuPct, runqPct, preemptedPerS, load, self, diag: await proxy.ask('report') };
}

const redisPort = await freePort();
const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no', '--dir', tmp], { stdio: 'ignore' });
children.add(redis);
/** @type {({ round: number, name: string, rttMs: number, c: number } & Awaited<ReturnType<typeof cell>>)[]} */
const rows = [];
try {
  await waitPort(redisPort);
  execFileSync('redis-cli', ['-p', String(redisPort), 'set', 'key:__rand_int__', 'x']);
  for (let r = 0; r < rounds; r++) {
    for (const rttMs of rtts) {
      const order = (r + rtts.indexOf(rttMs)) % 2 === 0 ? builds : [...builds].reverse();
      for (const [name, dir, env] of order) {
        const proxy = await startProxy(dir, env, redisPort, rttMs);
        try {
          for (const c of clients) {
            const res = await cell(proxy, rttMs, c);
            rows.push({ round: r, name, rttMs, c, ...res });
            const l = res.self.lateUs;
            process.stderr.write(`${name} ${rttMs} ms -c ${c}: lateUs p50/p99/max ${l.p50}/${l.p99}/${l.max}, cpu ${res.cpuPct.toFixed(0)}%, load ${res.load.toFixed(2)}\n`);
          }
        } finally {
          proxy.stop();
        }
      }
    }
  }
} finally {
  stopAll();
}

const f = (/** @type {{ p50: number, p99: number, max: number }} */ q) => `${q.p50}/${q.p99}/${q.max}`;
console.log(`redis-benchmark GET through redis-rtt proxy --rtt X ${proxyArgs.join(' ')}; ${rounds} round(s); microseconds unless marked`);
console.log('build    rtt_ms  -c  late p50/p99/max   n      woken p99(n)    polled p99(n)  thread-wake late p50/p99/max  arrival p99  loop p99  gc n/max  late>100 (gc)  elu   cpu%  runq%  preempt/s  rps     rt ms  load');
for (const x of rows) {
  const d = x.diag;
  const s = x.self;
  console.log(
    [
      x.name.padEnd(8),
      String(x.rttMs).padEnd(6),
      String(x.c).padStart(3),
      f(s.lateUs).padStart(16),
      String(s.lateUs.count).padStart(6),
      `${d.lateWokenUs.p99}(${d.lateWokenUs.n})`.padStart(15),
      `${d.latePolledUs.p99}(${d.latePolledUs.n})`.padStart(13),
      f(d.wakeLateUs).padStart(29),
      String(s.arrivalLagUs.p99).padStart(12),
      String(s.eventLoopDelayUs.p99).padStart(9),
      `${d.gc.n}/${d.gc.max}`.padStart(9),
      `${d.lateOver100} (${d.lateOver100WithGc})`.padStart(14),
      d.elu.toFixed(2).padStart(5),
      x.cpuPct.toFixed(0).padStart(5),
      x.runqPct.toFixed(1).padStart(6),
      x.preemptedPerS.toFixed(0).padStart(10),
      String(Math.round(x.rps)).padStart(7),
      ((x.c / x.rps) * 1000).toFixed(2).padStart(6),
      x.load.toFixed(2).padStart(6),
    ].join(' '),
  );
}
