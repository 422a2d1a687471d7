import net from 'node:net';
import type { Endpoint } from './endpoint.js';

/** @default how long the start-up probe waits for the upstream to accept. */
export const DEFAULT_PROBE_TIMEOUT_MS = 1000;

/**
 * Tries one connection to the upstream and closes it at once, so `redis-rtt proxy` can warn at
 * start that Redis is not there yet (the proxy itself dials Redis per client and keeps running).
 * Resolves with why it failed (an errno code like ECONNREFUSED, or a timeout), or undefined when
 * the upstream accepted. Never rejects.
 */
export function probeUpstream(upstream: Endpoint, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket =
      upstream.kind === 'tcp' ? net.connect({ host: upstream.host, port: upstream.port }) : net.connect({ path: upstream.path });
    const done = (why: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}
