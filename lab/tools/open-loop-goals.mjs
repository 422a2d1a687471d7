// The open-loop driver's goals (docs/open-loop.md "Driver and proxies"), checked by running the
// CLI: generator lateness p99 under 100 us at 20k/s with 50 connections (direct and cross-az), and
// at cross-az 2000/s over 8 connections (seq, then mux: commands written when due) a corrected p99
// within max(5%, 100 us) of the uncorrected one when the achieved rate is within 1% of the target.
// Next to that goal, what the driver's own lateness made of the gap: corrected p99 over the
// punctual replay's (every command sent when due, the run's service times:
// src/workload/open-loop/punctual.ts), judged by the same bound; the rest is the wait for a free
// connection (its p99 is printed). Per run: the figures, the driver's and the proxy's CPU (% of one
// core, from the JSON), their runq% (share of the run each process's threads were runnable but not
// running, from /proc schedstat: the OS scheduler's doing, not the event loop's) and the load
// average at the start. `--old DIR` (a built redis-rtt tree) runs
// beside this one, alternating, to compare builds.
//   npm run build && node lab/tools/open-loop-goals.mjs [--rounds 3] [--seconds 10] [--old /tmp/base]
import { spawn } from 'node:child_process';
import { setInterval, clearInterval } from 'node:timers';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cliArgv, flag as flagOf } from './proc.mjs';

const args = process.argv.slice(2);
if (args.includes('--help')) {
  process.stdout.write(String(readFileSync(new URL(import.meta.url), 'utf8').split('\nimport ')[0]).replaceAll('// ', '') + '\n');
  process.exit(0);
}
const rounds = Number(flagOf(args, '--rounds', '3'));
const seconds = flagOf(args, '--seconds', '10');
const here = path.resolve(new URL('../..', import.meta.url).pathname);
const old = flagOf(args, '--old');
/** @type {[string, string][]} */
const trees = [['new', here], ...(old ? /** @type {[string, string][]} */ ([['old', path.resolve(old)]]) : [])];
/** @type {[string, string[]][]} */
const CASES = [
  ['direct C=50 20k/s', ['--links', 'direct', '--clients', '50', '--rate', '20k']],
  ['cross-az C=50 20k/s', ['--links', 'cross-az', '--clients', '50', '--rate', '20k']],
  ['cross-az C=8 2000/s', ['--links', 'cross-az', '--clients', '8', '--rate', '2000']],
  // The same on multiplexed connections: no wait for a free one, so the gap is the driver's alone.
  ['cross-az C=8 2000/s mux', ['--links', 'cross-az', '--clients', '8', '--rate', '2000', '--modes', 'mux']],
];

/**
 * [run ns, runnable-but-waiting ns] of every thread of pid.
 * @param {number} pid
 * @returns {[number, number]}
 */
function schedstat(pid) {
  let run = 0;
  let wait = 0;
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      const [r = 0, w = 0] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ').map(Number);
      run += r;
      wait += w;
    }
  } catch {
    // gone
  }
  return [run, wait];
}

/**
 * The proxy processes whose parent is pid.
 * @param {number} pid
 * @returns {number[]}
 */
function childrenOf(pid) {
  const out = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) continue;
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').includes('proxy-process')) out.push(Number(e));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * One CLI run of a case from a tree: its JSON row, the load at its start, and runq% of driver and proxy.
 * @param {string} tree
 * @param {string[]} caseArgs
 */
async function run(tree, caseArgs) {
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const cli = spawn(process.execPath, [...cliArgv(tree), 'bench', ...caseArgs, '--duration', `${seconds}s`, '--format', 'json'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  cli.stdout.on('data', (d) => (out += d));
  const driverPid = cli.pid ?? 0;
  // The last sample of each process before it ended: its whole life, set-up included.
  /** @type {Map<number, { s: [number, number]; driver: boolean }>} */
  const last = new Map();
  const sampler = setInterval(() => {
    for (const pid of [driverPid, ...childrenOf(driverPid)]) last.set(pid, { s: schedstat(pid), driver: pid === driverPid });
  }, 100);
  await new Promise((resolve) => cli.on('exit', resolve));
  clearInterval(sampler);
  /** @param {boolean} driver */
  const pct = (driver) => {
    const xs = [...last.values()].filter((v) => v.driver === driver).map((v) => v.s);
    const run = xs.reduce((a, [r]) => a + r, 0);
    const wait = xs.reduce((a, [, w]) => a + w, 0);
    return run + wait > 0 ? Math.round((wait / (run + wait)) * 100) : null;
  };
  // A tree that refuses the case (an older build without `--modes mux`) prints no JSON.
  const r = out === '' ? { error: 'the CLI refused this case' } : JSON.parse(out).results[0];
  return { load, r, driverRunq: pct(true), proxyRunq: pct(false) };
}

console.log(
  'round tree case | achieved/target | late p50/p99 us | corrected/uncorrected p99 us | goal | punctual p99 us | driver\'s share | conn wait p99 us | cpu driver/proxy % | runq driver/proxy % | load',
);
for (let round = 1; round <= rounds; round++) {
  for (const [name, caseArgs] of CASES) {
    for (const [treeName, tree] of round % 2 ? trees : [...trees].reverse()) {
      const { load, r, driverRunq, proxyRunq } = await run(tree, caseArgs);
      // A failed run has no figures made from replies (null): say so and go on.
      if (r.error !== undefined || r.achievedRate === null) {
        console.log([round, treeName, name, '|', `FAILED: ${r.error ?? 'no replies'}`, '|', load].join(' '));
        continue;
      }
      const share = r.achievedRate / r.targetRate;
      const c = r.correctedLatencyUs.p99;
      const u = r.uncorrectedLatencyUs.p99;
      const goal = name.includes('2000')
        ? Math.abs(share - 1) > 0.01 ? 'rate off by >1%' : c - u <= Math.max(0.05 * u, 100) ? 'met' : 'missed'
        : r.latenessUs.p99 < 100 ? 'met' : 'missed';
      // What the driver's lateness made of the gap: corrected over the punctual replay (null where none).
      const p = r.punctualCorrectedP99Us ?? null;
      const driverShare = p === null ? '-' : c - p <= Math.max(0.05 * u, 100) ? `within (${c - p})` : `over (${c - p})`;
      console.log(
        [round, treeName, name, '|', `${r.achievedRate}/${r.targetRate}`, '|', `${r.latenessUs.p50}/${r.latenessUs.p99}`, '|', `${c}/${u}`, '|', goal, '|',
          p ?? '-', '|', driverShare, '|', r.connectionWaitUs?.p99 ?? '-', '|',
          `${r.processCpuPct}/${r.proxyCpuPct ?? '-'}`, '|', `${driverRunq ?? '-'}/${proxyRunq ?? '-'}`, '|', load].join(' '),
      );
    }
  }
}
