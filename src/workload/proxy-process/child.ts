/**
 * The entry point of a bench link's proxy process (forked by spawn.ts from dist/). It runs one
 * proxy, answers the driver's reads with the proxy's /stats snapshot and its own CPU, and ends on
 * `close` or when the driver is gone (the IPC channel closes however the driver ended, SIGKILL
 * included), so no proxy outlives its bench.
 */
import { collectStartupGarbage } from '../../proxy/gc-flags.js';
import { startSingleNodeProxy } from '../../proxy/index.js';
import type { RedisRttProxy } from '../../proxy/types.js';
import type { FromChild, ToChild } from './messages.js';
import { ReadingCpu } from './read-cpu.js';

let proxy: RedisRttProxy | undefined;
let ending = false;
/** A reading's CPU leaves out the reads' own answers (the stats snapshot and its IPC message). */
const readingCpu = new ReadingCpu();

function say(message: FromChild, then?: () => void): void {
  if (!process.connected) return then?.();
  process.send?.(message, undefined, {}, () => then?.());
}

async function end(): Promise<void> {
  if (ending) return;
  ending = true;
  await proxy?.close().catch(() => {});
  say({ type: 'closed' }, () => process.exit(0));
}

async function start(options: Extract<ToChild, { type: 'start' }>['options']): Promise<void> {
  try {
    proxy = await startSingleNodeProxy({ ...options, log: () => {} });
    collectStartupGarbage();
    say({ type: 'started', address: proxy.address, compensationUs: proxy.compensationUs });
  } catch (err) {
    say({ type: 'failed', message: (err as Error).message }, () => process.exit(1));
  }
}

if (!process.send) {
  process.stderr.write('redis-rtt: this is the bench proxy process; the bench forks it (it needs an IPC channel)\n');
  process.exit(2);
}
// Ctrl-C reaches the whole process group: the driver decides when this proxy stops, after it has
// read the stats of what finished.
process.on('SIGINT', () => {});
process.on('disconnect', () => void end());
process.on('message', (m: ToChild) => {
  if (m.type === 'start') void start(m.options);
  else if (m.type === 'close') void end();
  else if (m.type === 'read' && proxy) {
    const running = proxy;
    readingCpu.answer((cpuUs) => say({ type: 'reading', id: m.id, reading: { stats: running.stats(), cpuUs } }));
  }
});
say({ type: 'ready' });
