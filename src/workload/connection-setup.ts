/**
 * What a new driver connection costs before its first command, per link. Pure. The bench connects its
 * clients before timing (links.ts), so this is never in the figures; the report says so (a note).
 *
 *   TCP connect   one RTT: the proxy holds a new connection's first bytes one RTT (handshake on)
 *   HELLO 3       one RTT: ioredis's handshake with RESP3 (AUTH rides in it); AUTH alone with RESP2 and a
 *                 password; nothing with RESP2 and no password (ready check and CLIENT SETINFO are off)
 */
import type { LinkSpec } from '../link/link-spec.js';
import type { ConnectionSetup } from '../results/types.js';

export function driverSetupSteps(o: { protocol?: 2 | 3; password?: string }): string[] {
  const steps = ['TCP connect'];
  if ((o.protocol ?? 3) === 3) steps.push('HELLO');
  else if (o.password !== undefined) steps.push('AUTH');
  return steps;
}

export function connectionSetup(links: readonly LinkSpec[], steps: readonly string[], openedWhileTimed = 0): ConnectionSetup {
  const roundTrips = steps.length;
  return {
    openedWhileTimed,
    roundTrips,
    steps: [...steps],
    links: links.filter((l) => !l.direct && l.rttUs > 0).map((l) => ({ link: l.name, rttUs: l.rttUs, ms: (roundTrips * l.rttUs) / 1000 })),
  };
}
