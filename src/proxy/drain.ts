/** A clean stop's drain: how long it may take, and the wait for the connections to deliver what they hold. */
import type { ProxiedConnection } from './connection.js';

/** Past the link's round trip, for a clean stop: Redis's time to answer, a timer's lateness under load. */
export const DRAIN_MARGIN_MS = 100;
/** The longest a clean stop waits: a link of seconds, a partition or a blocked BLPOP is cut there. */
export const DRAIN_CAP_MS = 2000;
/** Jitter scales per direction taken as the most a jittered delay runs past its mean. */
const JITTER_SCALES = 2;
/** How often the connections are looked at while they drain (only then). */
const DRAIN_POLL_MS = 2;

/** How long a clean stop waits for the connections to drain, for a link of this round trip and jitter. */
export function drainLimitMs(rttUs: number, jitterUs: number): number {
  return Math.min(DRAIN_CAP_MS, (rttUs + 2 * JITTER_SCALES * jitterUs) / 1000 + DRAIN_MARGIN_MS);
}

/**
 * A clean stop (the proxy's close(), `redis-rtt proxy` at SIGTERM, Ctrl-C or SIGHUP), once the
 * listener stopped accepting: every client stops being read, and what a connection's chains hold
 * (a delay line's requests and replies, a stage's, the replies Redis owes for requests it read) is
 * delivered when due. Each connection closes once it has nothing left; the rest when `limitMs`
 * has passed, and the tap counts none of what they dropped (request-ledger.ts, dropUndelivered).
 * The live set is read again each time: a burst accepted with the last client is in it too.
 */
export async function drainConnections(live: Iterable<ProxiedConnection>, limitMs: number): Promise<void> {
  const endMs = performance.now() + limitMs;
  for (;;) {
    let open = 0;
    for (const c of live) {
      c.stopReading();
      if (c.drained) c.destroy();
      else open++;
    }
    if (open === 0 || performance.now() >= endMs) return;
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
  }
}
