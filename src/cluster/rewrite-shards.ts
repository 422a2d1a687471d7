import type { RewriteBuffer } from './rewrite-common.js';
import { isArray } from './rewrite-slots.js';
import { expectShape, mapGet, type RespNode } from './resp-tree.js';

/**
 * CLUSTER SHARDS (Redis 7): `[{slots, nodes: [{id, port, tls-port, ip, endpoint, hostname, role,
 * ...}]}]`, maps in RESP3, flat key/value arrays in RESP2. The real address is `ip` with `port`
 * (`tls-port` when there is no plain port); `ip`, `endpoint` and `hostname` become the listener's
 * host, `port` and `tls-port` its port (the listener speaks what the node speaks on its port).
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
  const ip = mapGet(node, 'ip');
  const port = mapGet(node, 'port');
  const tlsPort = mapGet(node, 'tls-port');
  const realPort = port ?? tlsPort;
  expectShape(ip?.text != null && realPort?.type === ':' && /^\d+$/.test(realPort.text ?? ''), 'CLUSTER SHARDS: a node has no ip and port');
  const listener = rb.address(ip.text, Number(realPort.text));
  if (!listener) return;
  rb.replace(ip, listener.host);
  for (const key of ['endpoint', 'hostname']) {
    const n = mapGet(node, key);
    if (n?.text && n.text !== '?') rb.replace(n, listener.host);
  }
  for (const n of [port, tlsPort]) if (n?.type === ':') rb.replace(n, String(listener.port));
}

function isMap(n: RespNode | undefined): n is RespNode {
  return n !== undefined && (n.type === '%' || n.type === '*') && n.items !== null && n.items.length % 2 === 0;
}
