import type tls from 'node:tls';
import { certificateError } from '../cluster/cluster-tls.js';
import type { RealAddress } from '../cluster/types.js';
import { formatEndpoint } from '../endpoint.js';
import { ConfigError, NetworkError } from '../errors.js';
import type { ProxyOptions } from '../proxy/types.js';
import { describeFailure, dialRedisReady } from '../redis/dial.js';

/** How long the start waits for the primary's TLS handshake; a primary that does not answer is no certificate problem. */
const HANDSHAKE_WAIT_MS = 1000;

/**
 * With --upstream-tls, one TLS handshake with the primary the first reading names, at start. The
 * readings reach the sentinels only, so a data node whose certificate does not verify (most often
 * a certificate for host names, while the sentinels name the nodes by IP; or another CA) started a
 * proxy whose every client of the nodes was then closed, one connection at a time, while cluster
 * mode's discovery stops on it. A ConfigError naming the flag, as for a sentinel's certificate;
 * any other failure (the primary down) is left to the connections.
 */
export async function checkPrimaryCertificate(primary: RealAddress, tlsFor: (host: string) => tls.ConnectionOptions, base: ProxyOptions): Promise<void> {
  const where = formatEndpoint({ kind: 'tcp', ...primary });
  let socket: Awaited<ReturnType<typeof dialRedisReady>>;
  try {
    socket = await dialRedisReady({ kind: 'tcp', ...primary }, { tls: tlsFor(primary.host) }, HANDSHAKE_WAIT_MS);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const failure = new NetworkError(`primary ${where}: ${describeFailure(e)}`, e.code);
    const bad = certificateError(base, failure);
    const named = typeof base.upstreamTls === 'object' ? base.upstreamTls.servername : undefined;
    if (bad?.flag === '--upstream-servername' && named === undefined) {
      // No name was given: the one verified is the address the sentinels gave, not a value the user typed.
      throw new ConfigError('--upstream-servername', undefined, `a name in the nodes' certificate: the sentinels name the primary ${where}, which it does not hold (${failure.message})`);
    }
    if (bad) throw bad;
    return;
  }
  // A close_notify, not a bare close: Redis logs a connection dropped in its handshake.
  socket.end();
}
