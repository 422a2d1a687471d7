import type { RewriteBuffer } from './rewrite-common.js';
import { expectShape, mapGet, type RespNode } from '../resp/reply-tree.js';

/**
 * CLUSTER SLOTS: `[[start, end, node, node...], ...]`, each node `[endpoint, port, id, metadata]`
 * (Redis 7 adds the metadata map: `ip` when the endpoint is not the IP, `hostname` when set; RESP2
 * sends it as a flat key/value array). The node's real address is its `ip` metadata, else its
 * endpoint; an empty or null endpoint means the host of the node answering. The endpoint, `ip` and
 * `hostname` become the listener's host, the port its port. A null endpoint stays null and `?`
 * (hostname unknown) stays `?`: the client reads them as the node answering and as unreachable.
 */
export function rewriteSlots(root: RespNode, rb: RewriteBuffer): void {
  expectShape(isArray(root), 'CLUSTER SLOTS: not an array');
  for (const range of root.items!) {
    expectShape(isArray(range) && range.items!.length >= 3, 'CLUSTER SLOTS: a range is not [start, end, node...]');
    for (const node of range.items!.slice(2)) rewriteSlotsNode(node, rb);
  }
}

function rewriteSlotsNode(node: RespNode, rb: RewriteBuffer): void {
  expectShape(isArray(node) && node.items!.length >= 2, 'CLUSTER SLOTS: a node is not [endpoint, port, ...]');
  const [endpoint, port] = node.items! as [RespNode, RespNode];
  const meta = node.items![3];
  expectShape(port.type === ':' && /^\d+$/.test(port.text ?? ''), 'CLUSTER SLOTS: port is not an integer');
  expectShape(meta === undefined || (meta.items !== null && (meta.type === '%' || meta.type === '*')), 'CLUSTER SLOTS: metadata is not a map');
  const ipNode = meta && mapGet(meta, 'ip');
  const host = ipNode?.text ?? (endpoint.text === '?' ? undefined : endpoint.text ?? '');
  if (host === undefined) return;
  const listener = rb.address(host, Number(port.text));
  if (!listener) return;
  if (endpoint.text !== null && endpoint.text !== '' && endpoint.text !== '?') rb.replace(endpoint, listener.host);
  rb.replace(port, String(listener.port));
  if (ipNode) rb.replace(ipNode, listener.host);
  const hostname = meta && mapGet(meta, 'hostname');
  if (hostname && hostname.text) rb.replace(hostname, listener.host);
}

export function isArray(n: RespNode | undefined): n is RespNode {
  return n !== undefined && (n.type === '*' || n.type === '~') && n.items !== null;
}
