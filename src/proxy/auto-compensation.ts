import { formatEndpoint, type Endpoint } from '../endpoint.js';
import { measureHop, measureSchedulerLatenessUs } from './hop.js';
import type { ProxyListener } from './listener.js';
import { measureHopThrough } from './self-calibrate.js';
import type { ProxyTls } from '../tls/setup.js';

/**
 * Ceiling on auto compensation per direction, above what a quiet machine measures
 * (docs/measurements.md): a larger figure means the machine was busy during the measurement, and
 * taking it all off would make the link faster than configured.
 */
export const MAX_AUTO_COMPENSATION_US = 80;

/**
 * What to take off each one-way delay: half the extra PING round trip the proxy adds with no delay
 * (measured through the start-up's own listener against the real upstream), plus the scheduler's lateness.
 * Falls back to a loopback estimate when the upstream cannot be reached at start, and to nothing
 * when something answers there that is not Redis (then there was no hop to measure).
 * `self` is the start-up's own listener (start-up-listener.ts): no client reaches the proxy yet, so
 * the measuring connections are all there is to close here, and the caller's counter reset leaves
 * none of them in /stats.
 */
export async function autoCompensation(
  server: ProxyListener,
  self: Endpoint,
  upstream: Endpoint,
  secure: ProxyTls,
  log: (line: string) => void,
): Promise<{ up: number; down: number }> {
  // Our own listener's certificate may be generated or for another name: this probe trusts it.
  const hop = await measureHopThrough(self, upstream, { self: secure.listen && { rejectUnauthorized: false }, upstream: secure.upstream });
  let perDirectionUs: number;
  if (hop && 'notRedis' in hop) {
    log(`warning: upstream ${formatEndpoint(upstream)} did not answer PING like Redis (${hop.notRedis}); no compensation`);
    perDirectionUs = 0;
  } else if (hop) {
    perDirectionUs = Math.max(0, (hop.proxyUs - hop.directUs) / 2) + (await measureSchedulerLatenessUs(50));
  } else {
    perDirectionUs = (await measureHop()).perDirectionUs;
  }
  // The measuring connection through our own listener: a client that closed may still be waiting on
  // an upstream that never closes its side (a silent listener), so end it here rather than wait.
  for (const c of server.connections()) c.destroy();
  await server.drained(200);
  let us = Math.round(perDirectionUs);
  if (us > MAX_AUTO_COMPENSATION_US) {
    log(`hop measured at ${us} us per direction (a busy machine?); compensating ${MAX_AUTO_COMPENSATION_US} us only`);
    us = MAX_AUTO_COMPENSATION_US;
  }
  return { up: us, down: us };
}
