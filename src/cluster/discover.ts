import { NetworkError } from '../errors.js';
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

/**
 * Asks one node whether it is in cluster mode and, if so, for CLUSTER NODES. Rejects with a
 * NetworkError that says what failed (unreachable, wrong password, no reply).
 */
export async function discoverCluster(host: string, port: number, auth: UpstreamAuth, timeoutMs = 2000): Promise<Discovery> {
  const login = authCommand(auth);
  let replies: RawReply[];
  try {
    // Named, so a node's CLIENT LIST tells the proxy's own short connections from the clients'.
    const cmds = [...(login ? [login] : []), ['CLIENT', 'SETNAME', DISCOVERY_CLIENT_NAME], ['INFO', 'cluster'], ['CLUSTER', 'NODES']];
    replies = await rawCommands({ host, port }, cmds, timeoutMs);
  } catch (err) {
    throw new NetworkError(`cluster discovery at ${host}:${port} failed: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code);
  }
  if (login) {
    const r = replies.shift();
    if (r?.type === '-') throw new NetworkError(`cluster discovery at ${host}:${port}: AUTH failed: ${r.text} (check --upstream-user and REDIS_RTT_UPSTREAM_PASSWORD)`);
  }
  const [, info, nodes] = replies;
  if (info?.type === '-') {
    const hint = /NOAUTH/.test(info.text ?? '') ? ' (set REDIS_RTT_UPSTREAM_PASSWORD, and --upstream-user for an ACL user)' : '';
    throw new NetworkError(`cluster discovery at ${host}:${port}: INFO cluster answered ${info.text}${hint}`);
  }
  if (!/cluster_enabled:1/.test(info?.text ?? '')) return { enabled: false, nodes: [] };
  if (nodes?.type !== '$' || nodes.text === null) throw new NetworkError(`cluster discovery at ${host}:${port}: CLUSTER NODES answered ${nodes?.text ?? 'nothing'}`);
  return { enabled: true, nodes: parseClusterNodes(nodes.text, host) };
}

function authCommand(auth: UpstreamAuth): string[] | undefined {
  if (auth.password === undefined) return undefined;
  return auth.user !== undefined ? ['AUTH', auth.user, auth.password] : ['AUTH', auth.password];
}
