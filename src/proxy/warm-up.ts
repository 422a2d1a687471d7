import type tls from 'node:tls';
import type { Endpoint } from '../endpoint.js';
import { dialRedis, readyEvent } from '../redis/dial.js';

/** What each warm-up connection sends: PING, which Redis answers without touching a key. */
const PING = Buffer.from('*1\r\n$4\r\nPING\r\n');
/** Connections open at once: a burst as redis-benchmark -c 50 makes one. */
const AT_ONCE = 50;
/** A warm-up connection that has no reply after this long ends the warm-up. */
const STALL_MS = 5000;

export interface WarmUpOptions {
  /** The proxy's own listener. */
  at: Endpoint;
  /** TLS to it, when it serves TLS. */
  tls?: tls.ConnectionOptions;
  count: number;
  log: (line: string) => void;
}

/**
 * Runs `count` short connections through the proxy's own listener before the first client: each
 * sends one PING, reads its reply and closes. A fresh Node process runs its connection set-up
 * unoptimized and compiles it while the first bursts go on, which is most of a cold burst's tail
 * (docs/precision.md, "The set-up burst is the JIT's warm-up"); this pays for it before anyone
 * measures. Redis sees the connections and the PINGs. A failure ends the warm-up with a log line,
 * never the start: a proxy may start while Redis is down. Resolves with the connections completed.
 */
export async function warmUp(o: WarmUpOptions): Promise<number> {
  let started = 0;
  let done = 0;
  let failure: string | undefined;
  const dial = { tls: o.tls };
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = dialRedis(o.at, dial);
      const fail = (why: string): void => {
        failure ??= why;
        socket.destroy();
      };
      socket.setTimeout(STALL_MS, () => fail(`no reply within ${STALL_MS} ms`));
      socket.once(readyEvent(dial), () => socket.write(PING));
      let reply = '';
      socket.on('data', (chunk: Buffer) => {
        reply += chunk.toString('latin1');
        if (!reply.endsWith('\r\n')) return;
        done++;
        socket.end();
      });
      socket.on('error', (err: NodeJS.ErrnoException) => fail(err.code ?? err.message));
      socket.once('close', () => resolve());
    });
  const worker = async (): Promise<void> => {
    while (failure === undefined && started < o.count) {
      started++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, o.count) }, worker));
  if (failure !== undefined) o.log(`warm-up stopped after ${done} of ${o.count} connections: ${failure}`);
  return done;
}
