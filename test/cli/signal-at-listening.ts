/** What the CLI tests of stop signals at the end of a start share. */
import { createServer, type AddressInfo } from 'node:net';
import { vi } from 'vitest';

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Emits `signal` as soon as the run prints its listening line (stdout and stderr muted), and notes
 * each stop signal that had no handler at some moment before that line: a signal sent then would
 * have met Node's default. `stop()` ends the watch.
 */
export function signalAtListening(signal: NodeJS.Signals): { readonly listening: boolean; readonly uncovered: string[]; stop(): void } {
  const state = { listening: false, uncovered: [] as string[], stop: () => undefined as void };
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    if (String(s).includes('"event":"listening"')) {
      state.listening = true;
      queueMicrotask(() => process.emit(signal));
    }
    return true;
  });
  const watch = (event: string | symbol): void => {
    if (!state.listening && (event === 'SIGINT' || event === 'SIGTERM' || event === 'SIGHUP') && process.listenerCount(event) === 0) state.uncovered.push(event);
  };
  process.on('removeListener', watch);
  state.stop = () => void process.off('removeListener', watch);
  return state;
}
