import type tls from 'node:tls';
import { certificateError } from '../cluster/cluster-tls.js';
import type { RealAddress } from '../cluster/types.js';
import { formatEndpoint } from '../endpoint.js';
import { ConfigError, NetworkError } from '../errors.js';
import type { ProxyOptions } from '../proxy/types.js';
import { describeFailure, dialRedisReady } from '../redis/dial.js';
import type { SentinelReading } from './discover.js';

/** How long a check waits for a node's TLS handshake; a node that does not answer is no certificate problem. */
const HANDSHAKE_WAIT_MS = 1000;

/** What a data node is to the user in a message: the primary, or a replica. */
export type DataRole = 'primary' | 'replica';

/**
 * The outcome of one TLS handshake with a data node: 'verified', a ConfigError naming the flag to
 * fix when its certificate does not verify, or 'unanswered' (the node down, or slow: left to the
 * connections, and to a later check).
 */
export async function nodeCertificate(
  role: DataRole,
  node: RealAddress,
  tlsFor: (host: string) => tls.ConnectionOptions,
  base: ProxyOptions,
): Promise<'verified' | 'unanswered' | ConfigError> {
  const where = formatEndpoint({ kind: 'tcp', ...node });
  let socket: Awaited<ReturnType<typeof dialRedisReady>>;
  try {
    socket = await dialRedisReady({ kind: 'tcp', ...node }, { tls: tlsFor(node.host) }, HANDSHAKE_WAIT_MS);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const failure = new NetworkError(`${role} ${where}: ${describeFailure(e)}`, e.code);
    const bad = certificateError(base, failure);
    const named = typeof base.upstreamTls === 'object' ? base.upstreamTls.servername : undefined;
    if (bad?.flag === '--upstream-servername' && named === undefined) {
      // No name was given: the one verified is the address the sentinels gave, not a value the user typed.
      return new ConfigError('--upstream-servername', undefined, `a name in the nodes' certificate: the sentinels name the ${role} ${where}, which it does not hold (${failure.message})`);
    }
    return bad ?? 'unanswered';
  }
  // A close_notify, not a bare close: Redis logs a connection dropped in its handshake.
  socket.end();
  return 'verified';
}

/**
 * With --upstream-tls, one TLS handshake with the primary and with each replica the first reading
 * names, at start, side by side. The readings reach the sentinels only, so a data node whose
 * certificate does not verify (most often a certificate for host names, while the sentinels name
 * the nodes by IP; or another CA) started a proxy whose every client of that node was then closed,
 * one connection at a time, while cluster mode's discovery stops on it. A ConfigError naming the
 * flag, the primary's first, as for a sentinel's certificate; a node down is left to the connections.
 * Returns the nodes whose certificate verified (not checked again: CertificateWarnings).
 */
export async function checkStartCertificates(
  first: SentinelReading,
  tlsFor: (host: string) => tls.ConnectionOptions,
  base: ProxyOptions,
): Promise<RealAddress[]> {
  const nodes: { role: DataRole; at: RealAddress }[] = [
    ...(first.primary ? [{ role: 'primary' as const, at: first.primary }] : []),
    // The sentinel leading a failover lists the promoted replica among the replicas for a while.
    ...first.replicas.filter((a) => a.host !== first.primary?.host || a.port !== first.primary.port).map((at) => ({ role: 'replica' as const, at })),
  ];
  const results = await Promise.all(nodes.map((n) => nodeCertificate(n.role, n.at, tlsFor, base)));
  const bad = results.find((r): r is ConfigError => r instanceof ConfigError);
  if (bad) throw bad;
  return nodes.filter((_, i) => results[i] === 'verified').map((n) => n.at);
}
