import type tls from 'node:tls';
import type { Endpoint } from '../endpoint.js';
import { pingUpstream } from './self-calibrate.js';

/** @default how long the start-up probe waits for the upstream to accept, and then to answer. */
export const DEFAULT_PROBE_TIMEOUT_MS = 1000;

export type ProbeResult = { unreachable: string } | { notRedis: string } | undefined;

/**
 * One connection to the upstream with one PING, closed at once, so `redis-rtt proxy` can warn at
 * start that Redis is not there yet (the proxy itself dials Redis per client and keeps running), or
 * that what is there is not Redis (an HTTP server, a listener that never answers). Any RESP reply,
 * an error such as -NOAUTH included, is Redis. Resolves undefined for Redis. Never rejects.
 */
export function probeUpstream(upstream: Endpoint, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS, secure?: tls.ConnectionOptions): Promise<ProbeResult> {
  return pingUpstream(upstream, timeoutMs, secure);
}
