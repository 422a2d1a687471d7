import type tls from 'node:tls';
import { DISCOVERY_CLIENT_NAME, type UpstreamAuth } from '../cluster/discover.js';
import type { RealAddress } from '../cluster/types.js';
import { formatEndpoint } from '../endpoint.js';
import { NetworkError } from '../errors.js';
import { describeFailure } from '../redis/dial.js';
import { rawCommands, rawField, type RawReply } from '../redis/raw-command.js';
import { isInstanceAddress } from './rewrite-reply.js';

/** What one sentinel says of one master. */
export interface SentinelReading {
  readonly sentinel: RealAddress;
  /** GET-MASTER-ADDR-BY-NAME; undefined when this sentinel does not monitor that name. */
  readonly primary: RealAddress | undefined;
  readonly replicas: readonly RealAddress[];
  /** The other sentinels it knows. */
  readonly sentinels: readonly RealAddress[];
  /** The names it monitors (SENTINEL MASTERS), for the error about an unknown one. */
  readonly masters: readonly string[];
}

/**
 * Asks one sentinel about `master` on a short connection named like cluster discovery's (so a
 * CLIENT LIST tells it apart). Rejects with a NetworkError saying what failed.
 */
export async function readSentinel(
  at: RealAddress,
  master: string,
  o: UpstreamAuth & { tls?: tls.ConnectionOptions; timeoutMs?: number },
): Promise<SentinelReading> {
  const login = o.password === undefined ? undefined : o.user !== undefined ? ['AUTH', o.user, o.password] : ['AUTH', o.password];
  const cmds = [
    ...(login ? [login] : []),
    ['CLIENT', 'SETNAME', DISCOVERY_CLIENT_NAME],
    ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', master],
    ['SENTINEL', 'REPLICAS', master],
    ['SENTINEL', 'SENTINELS', master],
    ['SENTINEL', 'MASTERS'],
  ];
  // As the user types it ([::1]:26379): it ends up in the exit-2 message and the start-up warning.
  const where = formatEndpoint({ kind: 'tcp', ...at });
  let replies: RawReply[];
  try {
    replies = await rawCommands({ kind: 'tcp', ...at }, cmds, o.timeoutMs ?? 2000, o.tls);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new NetworkError(`sentinel ${where}: ${o.tls ? describeFailure(e) : e.message}${tlsHint(e, o.tls !== undefined)}`, e.code);
  }
  // Closed before every reply (a server at maxclients, a proxy whose upstream is gone): read as a
  // sentinel that knows no master, it was reported as `--sentinel-master ... monitors no master`.
  if (replies.length < cmds.length) {
    const said = replies.find((r) => r.type === '-')?.text;
    throw new NetworkError(`sentinel ${where}: closed the connection after ${replies.length} of ${cmds.length} replies${said ? ` (${said})` : ''}`);
  }
  if (login && replies[0]?.type === '-') {
    throw new NetworkError(`sentinel ${where}: AUTH failed: ${replies[0].text} (check --sentinel-user and REDIS_RTT_SENTINEL_PASSWORD)`);
  }
  const [, addr, replicas, sentinels, masters] = login ? replies.slice(1) : replies;
  if (addr?.type === '-') {
    const hint = /NOAUTH/.test(addr.text ?? '') ? ' (set REDIS_RTT_SENTINEL_PASSWORD, and --sentinel-user for an ACL user)' : '';
    throw new NetworkError(`sentinel ${where}: SENTINEL GET-MASTER-ADDR-BY-NAME answered ${addr.text}${hint}`);
  }
  const primary = addressOf(addr?.items?.[0], addr?.items?.[1]);
  return {
    sentinel: at,
    primary,
    replicas: entries(replicas),
    sentinels: entries(sentinels),
    masters: (masters?.items ?? []).map((m) => rawField(m, 'name')).filter((n): n is string => n !== undefined),
  };
}

function entries(reply: RawReply | undefined): RealAddress[] {
  if (reply?.type === '-') return [];
  return (reply?.items ?? []).map((e) => addressOf({ type: '$', text: rawField(e, 'ip') ?? null }, { type: '$', text: rawField(e, 'port') ?? null })).filter((a): a is RealAddress => a !== undefined);
}

function addressOf(host: RawReply | undefined, port: RawReply | undefined): RealAddress | undefined {
  if (!host?.text || !port?.text || !isInstanceAddress(host.text, port.text)) return undefined;
  return { host: host.text, port: Number(port.text) };
}

/**
 * The likely cause of a sentinel that would not talk, when it is TLS on one side only: a TLS-only
 * sentinel resets a plaintext connection at its first bytes, and a plaintext one reads a
 * ClientHello as an unfinished inline command and says nothing (cluster discovery's hint).
 */
function tlsHint(e: Error & { code?: string }, overTls: boolean): string {
  if (overTls) return /^no reply/.test(e.message) ? ' (no TLS handshake: a plaintext sentinel? leave out --upstream-tls)' : '';
  return e.code === 'ECONNRESET' ? ' (a TLS-only sentinel? add --upstream-tls)' : '';
}
