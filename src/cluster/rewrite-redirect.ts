import type { RewriteBuffer } from './rewrite-common.js';
import { splitHostPort } from './rewrite-common.js';
import type { RespNode } from '../resp/reply-tree.js';
import type { RewriteKind } from './types.js';

const REDIRECT = /^(MOVED|ASK) (\d+) (\S*)$/;

/**
 * `-MOVED <slot> <host>:<port>` and `-ASK ...`: the address becomes the listener's. The empty
 * endpoint form (`MOVED 3999 :6381`, the node answering does not know the host the client used)
 * keeps its empty host: the client reconnects to the host it used, the proxy's. Returns the kind,
 * or undefined when the error is not a redirect.
 */
export function rewriteRedirect(node: RespNode, rb: RewriteBuffer): RewriteKind | undefined {
  if ((node.type !== '-' && node.type !== '!') || node.text === null) return undefined;
  const m = REDIRECT.exec(node.text);
  if (!m) return undefined;
  const real = splitHostPort(m[3]!);
  if (!real) return undefined;
  const kind = m[1] === 'MOVED' ? 'moved' : 'ask';
  // `?`: the node answering prefers hostnames (cluster-preferred-endpoint-type hostname) and the
  // node named announces none. No address, so no node to look up or open a listener for (one was
  // opened that dialed the host "?", and clients were sent to it): it passes as Redis wrote it,
  // as `?` does in CLUSTER SLOTS, and a client fails on it as it would without the proxy.
  if (real.host === '?') return kind;
  const listener = rb.address(real.host, real.port);
  if (listener) rb.replace(node, `${m[1]} ${m[2]} ${real.host === '' ? '' : listener.host}:${listener.port}`);
  return kind;
}

/** Cheap test before parsing: can this reply be a redirect? */
export function mayBeRedirect(bytes: Buffer): boolean {
  const t = bytes[0];
  return (t === 0x2d /* - */ || t === 0x21) /* ! */ && (bytes.includes('MOVED ') || bytes.includes('ASK '));
}
