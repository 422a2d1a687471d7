/**
 * The garbage collector in a process that runs redis-rtt's proxies (the CLI, a bench link's proxy
 * process). Two collections used to land in the middle of a measurement, each a pause of several
 * milliseconds, the largest latency a one-client run recorded (docs/precision.md, "GC at
 * start-up"):
 * - the first scavenge under traffic, which copied everything start-up had left in the young
 *   generation (the modules' objects);
 * - V8's memory reducer, which waits until a process looks idle after a burst of allocation (its
 *   start-up) and then runs up to three full mark-compacts half a second apart to give memory
 *   back. A proxy under steady, light traffic looks idle to it.
 * So the process runs without the reducer and collects start-up's garbage once before it says it
 * is listening. V8 decides whether a heap has a reducer when the heap is made, so the flags work
 * only on the command line: bin/redis-rtt.js passes them in its `#!` line (a test checks that the
 * two agree), and a bench link's proxy process is forked with them.
 */

/** As command-line flags, for a forked process's `execArgv`. */
export const PROXY_PROCESS_V8_FLAGS: readonly string[] = ['--no-memory-reducer', '--expose-gc'];

/**
 * A full collection now, where `--expose-gc` gave this process `gc` (a library user's process
 * without it: nothing). Call it once start-up is done, before the first client is expected.
 */
export function collectStartupGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
