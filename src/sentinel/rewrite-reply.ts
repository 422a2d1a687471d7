import { RewriteBuffer } from '../cluster/rewrite-common.js';
import { isArray } from '../cluster/rewrite-slots.js';
import type { RealAddress } from '../cluster/types.js';
import { formatEndpoint } from '../endpoint.js';
import { applySplices, expectShape, mapGet, parseFrame, RespTreeError, type RespNode } from '../resp/reply-tree.js';
import type { SentinelBuffers, SentinelRewriteContext, SentinelRewriteKind, SentinelRewriteResult } from './types.js';

/** SENTINEL subcommands whose replies name instances: what each reply is, and whose addresses its entries are. */
const SUBCOMMANDS: Record<string, { kind: SentinelRewriteKind; shape: 'address' | 'entry' | 'entries'; of: 'nodes' | 'sentinels' }> = {
  'GET-MASTER-ADDR-BY-NAME': { kind: 'primary-address', shape: 'address', of: 'nodes' },
  MASTER: { kind: 'masters', shape: 'entry', of: 'nodes' },
  MASTERS: { kind: 'masters', shape: 'entries', of: 'nodes' },
  REPLICAS: { kind: 'replicas', shape: 'entries', of: 'nodes' },
  SLAVES: { kind: 'replicas', shape: 'entries', of: 'nodes' },
  SENTINELS: { kind: 'sentinels', shape: 'entries', of: 'sentinels' },
};

/** The SENTINEL subcommand a request is, upper case, when its reply names instances; else undefined. */
export function sentinelSubcommand(name: string, args: readonly Buffer[]): string | undefined {
  if (name !== 'SENTINEL' || args.length === 0) return undefined;
  const sub = args[0]!.toString('latin1').toUpperCase();
  return sub in SUBCOMMANDS ? sub : undefined;
}

/**
 * Rewrites the addresses in one whole reply to a SENTINEL subcommand (sentinelSubcommand's):
 * GET-MASTER-ADDR-BY-NAME's `[ip, port]`, and in every instance entry of MASTER, MASTERS,
 * REPLICAS / SLAVES and SENTINELS (a RESP3 map or RESP2's flat key/value array) the fields `ip`,
 * `port`, `name` when it is that `ip:port` or `[ip]:port` (a replica's; a sentinel's name is its run id, a
 * master's its name), and `master-host` / `master-port`. Other fields and every other byte stay.
 * Error and null replies pass. Pure: the listeners come through `ctx`.
 */
export function rewriteSentinelReply(bytes: Buffer, sub: string, ctx: SentinelRewriteContext): SentinelRewriteResult {
  const what = SUBCOMMANDS[sub];
  const t = String.fromCharCode(bytes[0] ?? 0);
  if (!what || t === '-' || t === '!' || t === '_' || bytes.subarray(0, 4).toString('latin1') === '*-1\r') return unchanged(bytes);
  const rb: SentinelBuffers = { nodes: new RewriteBuffer(ctx.nodes), sentinels: new RewriteBuffer(ctx.sentinels) };
  let primary: SentinelRewriteResult['primary'];
  try {
    const root = parseFrame(bytes);
    if (what.shape === 'address') primary = rewriteAddressPair(root, rb.nodes);
    else if (what.shape === 'entry') primary = rewriteEntry(root, rb[what.of], rb.nodes);
    else {
      expectShape(isArray(root), `SENTINEL ${sub}: not an array`);
      for (const entry of root.items!) rewriteEntry(entry, rb[what.of], rb.nodes);
    }
  } catch (err) {
    if (!(err instanceof RespTreeError)) throw err;
    return { ...unchanged(bytes), unparsed: `SENTINEL ${sub}: ${err.message}` };
  }
  return finish(bytes, rb, what.kind, primary);
}

/**
 * Applies both buffers' splices and reports what must be opened first. An address with no listener keeps its real
 * one and every other is rewritten all the same (the stage opens the missing and rewrites again): a reply passed
 * whole because one replica found no port in --listen-ports sent clients to the primary and every node directly.
 */
export function finish(bytes: Buffer, rb: SentinelBuffers, kind: SentinelRewriteKind, primary?: SentinelRewriteResult['primary']): SentinelRewriteResult {
  const missing = { nodes: rb.nodes.missing, sentinels: rb.sentinels.missing };
  const splices = [...rb.nodes.splices, ...rb.sentinels.splices];
  return { bytes: applySplices(bytes, splices), kind: splices.length > 0 ? kind : undefined, missing, primary };
}

function rewriteAddressPair(root: RespNode, rb: RewriteBuffer): SentinelRewriteResult['primary'] {
  expectShape(isArray(root) && root.items!.length === 2, 'GET-MASTER-ADDR-BY-NAME: not [ip, port]');
  const [ip, port] = root.items! as [RespNode, RespNode];
  const real = address(ip, port);
  expectShape(real, 'GET-MASTER-ADDR-BY-NAME: not [ip, port]');
  const listener = rb.address(real.host, real.port);
  if (listener) {
    rb.replace(ip, listener.host);
    rb.replace(port, String(listener.port));
  }
  return { ...real, name: '' };
}

/** One instance entry; returns its real address and name. An entry without ip and port is left as it is. */
function rewriteEntry(entry: RespNode, rb: RewriteBuffer, nodes: RewriteBuffer): SentinelRewriteResult['primary'] {
  expectShape(entry.items !== null && (entry.type === '%' || (isArray(entry) && entry.items.length % 2 === 0)), 'an instance entry is not a map');
  const ip = mapGet(entry, 'ip');
  const port = mapGet(entry, 'port');
  const real = ip && port ? address(ip, port) : undefined;
  const name = mapGet(entry, 'name');
  if (real) {
    const listener = rb.address(real.host, real.port);
    if (listener) {
      rb.replace(ip!, listener.host);
      rb.replace(port!, String(listener.port));
      if (name?.text === instanceName(real.host, real.port)) rb.replace(name, instanceName(listener.host, listener.port));
    }
  }
  const masterHost = mapGet(entry, 'master-host');
  const masterPort = mapGet(entry, 'master-port');
  const master = masterHost && masterPort ? address(masterHost, masterPort) : undefined;
  if (master) {
    const listener = nodes.address(master.host, master.port);
    if (listener) {
      nodes.replace(masterHost!, listener.host);
      nodes.replace(masterPort!, String(listener.port));
    }
  }
  return real && { ...real, name: name?.text ?? '' };
}

/** A host leaf and a port leaf (bulk or integer) as an address; undefined when they are not one. */
function address(host: RespNode, port: RespNode): RealAddress | undefined {
  if (host.items !== null || host.text === null || port.text === null) return undefined;
  return isInstanceAddress(host.text, port.text) ? { host: host.text, port: Number(port.text) } : undefined;
}

/**
 * The name Sentinel gives a replica (and an instance in its events): its address as Redis's
 * anetFormatAddr writes it, `ip:port`, or `[ip]:port` for an IPv6 address. Matching the bare
 * `ip:port` instead left every IPv6 replica's name pointing at the node itself.
 */
export function instanceName(host: string, port: number | string): string {
  return formatEndpoint({ kind: 'tcp', host, port: Number(port) });
}

/**
 * An address an instance can be reached at. Sentinel writes `?` and port 0 for a replica whose
 * address it does not know yet (during a failover): those are left as they are.
 */
export function isInstanceAddress(host: string, port: string): boolean {
  return host !== '' && host !== '?' && /^\d{1,5}$/.test(port) && Number(port) > 0;
}

function unchanged(bytes: Buffer): SentinelRewriteResult {
  return { bytes, kind: undefined, missing: { nodes: [], sentinels: [] } };
}
