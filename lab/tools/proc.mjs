// Helpers the lab tools share: a flag's value from argv, a free loopback port, waiting for a port
// to answer, and a process's CPU time from /proc (Linux).
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

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
