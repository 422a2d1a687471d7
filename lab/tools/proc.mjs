// Helpers the lab tools share: a flag's value from argv, a free loopback port, waiting for a port
// to answer, a process's CPU time from /proc (Linux), and how to start a tree's CLI.
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * Node's arguments that run TREE's CLI as its `#!` line does (`#!/usr/bin/env -S node --flag`), so
 * a lab run measures the CLI as its users start it, with whatever flags that build's line carries.
 * @param {string} tree
 * @returns {string[]}
 */
export function cliArgv(tree) {
  const bin = path.join(tree, 'bin/redis-rtt.js');
  const words = (readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/);
  const node = words.indexOf('node');
  return [...(node < 0 ? [] : words.slice(node + 1)), bin];
}

/**
 * The value after `--name` in argv, or `def` when the flag is not there.
 * @overload
 * @param {readonly string[]} argv
 * @param {string} name
 * @param {string} def
 * @returns {string}
 */
/**
 * @overload
 * @param {readonly string[]} argv
 * @param {string} name
 * @returns {string | undefined}
 */
/**
 * @param {readonly string[]} argv
 * @param {string} name
 * @param {string} [def]
 * @returns {string | undefined}
 */
export function flag(argv, name, def) {
  const i = argv.indexOf(name);
  if (i < 0) return def;
  const value = argv[i + 1];
  if (value === undefined) throw new Error(`${name} needs a value`);
  return value;
}

/**
 * A TCP port free on 127.0.0.1 right now.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once 127.0.0.1:port accepts a connection (tries every 25 ms, `tries` times).
 * @param {number} port
 * @param {number} [tries]
 * @returns {Promise<void>}
 */
export async function waitPort(port, tries = 400) {
  for (let i = 0; i < tries; i++) {
    const ok = await new Promise((r) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), r(true)));
      s.on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`port ${port} never answered`);
}

/**
 * CPU time of all the process's threads, ns (0 without a pid).
 * @param {number | undefined} pid
 * @returns {number}
 */
export function cpuNs(pid) {
  if (!pid) return 0;
  let total = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread ended between the listing and the read
    }
  }
  return total;
}

/**
 * Times any thread of the process was switched out while still runnable (involuntary context
 * switches, from /proc/PID/task/N/status): another task took its core. 0 without a pid.
 * @param {number | undefined} pid
 * @returns {number}
 */
export function preemptions(pid) {
  if (!pid) return 0;
  let total = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const m = /^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/task/${t}/status`, 'utf8'));
      total += m ? Number(m[1]) : 0;
    } catch {
      // a thread ended between the listing and the read
    }
  }
  return total;
}
