import { RewriteBuffer } from './rewrite-common.js';
import { mayBeRedirect, rewriteRedirect } from './rewrite-redirect.js';
import { rewriteNodesText, rewriteReplicasText } from './rewrite-nodes-text.js';
import { rewriteShards } from './rewrite-shards.js';
import { rewriteSlots } from './rewrite-slots.js';
import { applySplices, parseFrame, RespTreeError, type RespNode } from '../resp/reply-tree.js';
import type { RewriteContext, RewriteKind, RewriteResult } from './types.js';

const TOPOLOGY: Record<string, RewriteKind> = { SLOTS: 'slots', SHARDS: 'shards', NODES: 'nodes', REPLICAS: 'replicas', SLAVES: 'replicas' };
const REWRITERS: Record<'slots' | 'shards' | 'nodes' | 'replicas', (root: RespNode, rb: RewriteBuffer) => void> = {
  slots: rewriteSlots,
  shards: rewriteShards,
  nodes: rewriteNodesText,
  replicas: rewriteReplicasText,
};

/** The topology reply a request asks for (CLUSTER SLOTS / SHARDS / NODES / REPLICAS / SLAVES), or undefined. */
export function topologyKind(name: string, args: readonly Buffer[]): RewriteKind | undefined {
  if (name !== 'CLUSTER' || args.length === 0) return undefined;
  return TOPOLOGY[args[0]!.toString('latin1').toUpperCase()];
}

/**
 * Rewrites the node addresses in one whole reply frame. `kind` is the topology reply the request
 * asked for, if any; `execKinds` is given for an EXEC reply: the topology kind of each queued
 * command, in order. Any reply may be a redirect (-MOVED / -ASK), and so may any element of an
 * EXEC result. Pure: what it needs from the proxy comes through `ctx`.
 */
export function rewriteReply(
  bytes: Buffer,
  ctx: RewriteContext,
  kind: RewriteKind | undefined,
  execKinds?: readonly (RewriteKind | undefined)[],
): RewriteResult {
  const exec = execKinds !== undefined && bytes[0] === 0x2a && (execKinds.some((k) => k !== undefined) || bytes.includes('MOVED ') || bytes.includes('ASK '));
  if (kind === undefined && !exec && !mayBeRedirect(bytes)) return unchanged(bytes);
  let root: RespNode;
  try {
    root = parseFrame(bytes);
  } catch (err) {
    if (kind === undefined || !(err instanceof RespTreeError)) return unchanged(bytes);
    return { ...unchanged(bytes), unparsed: { kind, reason: err.message } };
  }
  const rb = new RewriteBuffer(ctx);
  const kinds: RewriteKind[] = [];
  // A kind counts only where an address was rewritten: one with no listener is not.
  const one = (node: RespNode, k: RewriteKind | undefined): RewriteResult['unparsed'] => {
    const before = rb.splices.length;
    const redirect = rewriteRedirect(node, rb);
    if (redirect && rb.splices.length > before) kinds.push(redirect);
    if (redirect || k === undefined || k === 'moved' || k === 'ask' || node.type === '-' || node.type === '!') return undefined;
    try {
      REWRITERS[k](node, rb);
    } catch (err) {
      if (err instanceof RespTreeError) return { kind: k, reason: err.message };
      throw err;
    }
    if (rb.splices.length > before) kinds.push(k);
    return undefined;
  };
  let unparsed: RewriteResult['unparsed'];
  if (exec && root.items) {
    root.items.forEach((item, i) => (unparsed ??= one(item, execKinds![i])));
  } else {
    unparsed = one(root, kind);
  }
  if (unparsed) return { ...unchanged(bytes), unparsed };
  return { bytes: applySplices(bytes, rb.splices), kinds, missing: rb.missing };
}

function unchanged(bytes: Buffer): RewriteResult {
  return { bytes, kinds: [], missing: [] };
}
