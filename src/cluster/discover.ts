import type tls from 'node:tls';
import { formatEndpoint } from '../endpoint.js';
import { NetworkError } from '../errors.js';
import { describeFailure } from '../redis/dial.js';
import { rawCommands, type RawReply } from '../redis/raw-command.js';
import { parseClusterNodes, type TopologyNode } from './topology.js';

/** How the proxy's own connections (discovery, topology refresh) log in; never the clients'. */
export interface UpstreamAuth {
  user?: string;
  password?: string;
}

export const DISCOVERY_CLIENT_NAME = 'redis-rtt-discovery';

export interface Discovery {
  /** INFO cluster says cluster_enabled:1. */
  readonly enabled: boolean;
  /** Empty when not a cluster. */
  readonly nodes: readonly TopologyNode[];
}

/** How discovery connects: `auth` to log in, `tls` (the resolved `--upstream-tls` options) to speak TLS. */
export interface DiscoveryOptions extends UpstreamAuth {
  tls?: tls.ConnectionOptions;
  timeoutMs?: number;
}

/**
 * Asks one node whether it is in cluster mode and, if so, for CLUSTER NODES (over TLS with
 * `o.tls`: then Redis names every node by its TLS port). Rejects with a NetworkError that says what
 * failed (unreachable, wrong password, no reply, a certificate that does not verify: its code
 * kept for certificateFlag()).
 */
export async function discoverCluster(host: string, port: number, o: DiscoveryOptions = {}): Promise<Discovery> {
  const login = authCommand(o);
  // [::1]:6379, not ::1:6379: an IPv6 host in brackets, as every other address is written.
  const at = formatEndpoint({ kind: 'tcp', host, port });
  let replies: RawReply[];
  try {
    // Named, so a node's CLIENT LIST tells the proxy's own short connections from the clients'.
    const cmds = [...(login ? [login] : []), ['CLIENT', 'SETNAME', DISCOVERY_CLIENT_NAME], ['INFO', 'cluster'], ['CLUSTER', 'NODES']];
    replies = await rawCommands({ kind: 'tcp', host, port }, cmds, o.timeoutMs ?? 2000, o.tls);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    let reason = e.message;
    if (o.tls) reason = /^no reply/.test(e.message) ? `${e.message} (no TLS handshake: plaintext Redis?)` : describeFailure(e);
    throw new NetworkError(`cluster discovery at ${at} failed: ${reason}`, e.code);
  }
  if (login) {
    const r = replies.shift();
    if (r?.type === '-') throw new NetworkError(`cluster discovery at ${at}: AUTH failed: ${r.text} (check --upstream-user and REDIS_RTT_UPSTREAM_PASSWORD)`);
  }
  const [, info, nodes] = replies;
  if (info?.type === '-') {
    const hint = /NOAUTH/.test(info.text ?? '') ? ' (set REDIS_RTT_UPSTREAM_PASSWORD, and --upstream-user for an ACL user)' : '';
    throw new NetworkError(`cluster discovery at ${at}: INFO cluster answered ${info.text}${hint}`);
  }
  if (!/cluster_enabled:1/.test(info?.text ?? '')) return { enabled: false, nodes: [] };
  if (nodes?.type !== '$' || nodes.text === null) throw new NetworkError(`cluster discovery at ${at}: CLUSTER NODES answered ${nodes?.text ?? 'nothing'}`);
  return { enabled: true, nodes: parseClusterNodes(nodes.text, host) };
}

export type CertificateFlag = '--upstream-ca' | '--upstream-servername' | '--upstream-cert';

/**
 * The flag to blame when discovery failed on a certificate (a wrong CA or name, or a client
 * certificate Redis refuses, fails every connection alike, so it is a start-up error): Node's
 * verification codes for Redis's certificate, or an alert from Redis about ours (mTLS). Undefined
 * for other failures.
 */
export function certificateFlag(code: string | undefined): CertificateFlag | undefined {
  if (code === undefined) return undefined;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return '--upstream-servername';
  if (/^ERR_SSL_.*ALERT_(CERTIFICATE_REQUIRED|UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_)/.test(code)) return '--upstream-cert';
  if (code.startsWith('ERR_')) return undefined;
  return /CERT|SIGNATURE|ISSUER|SELF_SIGNED/.test(code) ? '--upstream-ca' : undefined;
}

function authCommand(auth: UpstreamAuth): string[] | undefined {
  if (auth.password === undefined) return undefined;
  return auth.user !== undefined ? ['AUTH', auth.user, auth.password] : ['AUTH', auth.password];
}
