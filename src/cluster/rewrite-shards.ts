import type { RewriteBuffer } from './rewrite-common.js';
import { isArray } from './rewrite-slots.js';
import { expectShape, mapGet, type RespNode } from '../resp/reply-tree.js';

/**
 * CLUSTER SHARDS (Redis 7): `[{slots, nodes: [{id, port, tls-port, ip, endpoint, hostname, role,
 * ...}]}]`, maps in RESP3, flat key/value arrays in RESP2. Redis lists a node's plaintext `port`
 * and its `tls-port` whatever the connection speaks; the real address is `ip` with the port the
 * proxy dials (`tls-port` over upstream TLS, else `port`; the other when that one is absent).
 * `ip`, `endpoint` and `hostname` become the listener's host. The listener speaks one protocol, so
 * the node is given one port: the listener's, under `tls-port` when the listeners serve TLS and
 * `port` when not; the other key is dropped (its map shrinks by one pair). A client reads the port
 * matching its own protocol (docs/cluster.md), and a plaintext one must not find a real TLS port.
 */
export function rewriteShards(root: RespNode, rb: RewriteBuffer): void {
  expectShape(isArray(root), 'CLUSTER SHARDS: not an array');
  for (const shard of root.items!) {
    expectShape(isMap(shard), 'CLUSTER SHARDS: a shard is not a map');
    const nodes = mapGet(shard, 'nodes');
    expectShape(isArray(nodes), 'CLUSTER SHARDS: a shard has no nodes array');
    for (const node of nodes.items!) rewriteShardNode(node, rb);
  }
}

function rewriteShardNode(node: RespNode, rb: RewriteBuffer): void {
  expectShape(isMap(node), 'CLUSTER SHARDS: a node is not a map');
  const items = node.items!;
  const ip = mapGet(node, 'ip');
  const plainAt = keyIndex(items, 'port');
  const tlsAt = keyIndex(items, 'tls-port');
  const dialed = rb.ctx.upstreamTls ? (tlsAt ?? plainAt) : (plainAt ?? tlsAt);
  // A node with no address (noaddr, forgotten while it still owns slots) has an empty ip and no
  // port at all: nothing to rewrite. The whole reply went out unparsed, every node's real address in it.
  if (dialed === undefined && !ip?.text) return;
  const realPort = dialed === undefined ? undefined : items[dialed + 1];
  expectShape(ip?.text != null && realPort?.type === ':' && /^\d+$/.test(realPort.text ?? ''), 'CLUSTER SHARDS: a node has no ip and port');
  const listener = rb.address(ip.text, Number(realPort.text));
  if (!listener) return;
  rb.replace(ip, listener.host);
  for (const key of ['endpoint', 'hostname']) {
    const n = mapGet(node, key);
    if (n?.text && n.text !== '?') rb.replace(n, listener.host);
  }
  const wantKey = rb.ctx.listenTls ? 'tls-port' : 'port';
  const keep = rb.ctx.listenTls ? (tlsAt ?? plainAt)! : (plainAt ?? tlsAt)!;
  const drop = keep === plainAt ? tlsAt : plainAt;
  rb.replace(items[keep]!, wantKey);
  rb.replace(items[keep + 1]!, String(listener.port));
  if (drop === undefined) return;
  rb.replaceSpan(items[drop]!.start, items[drop + 1]!.end, Buffer.alloc(0));
  // The map's header counts pairs in RESP3 (%N) and elements in RESP2 (*2N).
  const count = node.type === '%' ? items.length / 2 - 1 : items.length - 2;
  rb.replaceSpan(node.valueStart, items[0]!.start, Buffer.from(`${node.type}${count}\r\n`));
}

function keyIndex(items: readonly RespNode[], key: string): number | undefined {
  for (let i = 0; i + 1 < items.length; i += 2) if (items[i]!.text === key) return i;
  return undefined;
}

function isMap(n: RespNode | undefined): n is RespNode {
  return n !== undefined && (n.type === '%' || n.type === '*') && n.items !== null && n.items.length % 2 === 0;
}
