import type { RewriteBuffer } from './rewrite-common.js';
import { splitHostPort } from './rewrite-common.js';
import { isArray } from './rewrite-slots.js';
import { expectShape, type RespNode } from '../resp/reply-tree.js';

/**
 * CLUSTER NODES (one string, a line per node) and CLUSTER REPLICAS / SLAVES (an array of such
 * lines). A line is `<id> <ip:port@cport[,hostname[,aux=value...]]> <flags> ...`: `ip:port` and a
 * hostname become the listener's (a client that prefers the hostname, as CLUSTER SHARDS and SLOTS
 * give it too, must reach the listener, not the real node); the bus port, an empty hostname (none
 * announced) and Redis 7.2's aux fields (`shard-id=...`) stay, as does a node with no address yet
 * (`:0@0`). The string is re-encoded whole, in its own type (bulk, or RESP3 verbatim `txt`).
 */
export function rewriteNodesText(root: RespNode, rb: RewriteBuffer): void {
  expectShape(isText(root), 'CLUSTER NODES: not a string');
  rewriteText(root, rb);
}

export function rewriteReplicasText(root: RespNode, rb: RewriteBuffer): void {
  expectShape(isArray(root), 'CLUSTER REPLICAS: not an array');
  for (const item of root.items!) {
    expectShape(isText(item), 'CLUSTER REPLICAS: an element is not a string');
    rewriteText(item, rb);
  }
}

function rewriteText(node: RespNode, rb: RewriteBuffer): void {
  const lines = node.text!.split('\n');
  let changed = false;
  const out = lines.map((line) => {
    if (line === '') return line;
    const fields = line.split(' ');
    expectShape(fields.length >= 8, 'CLUSTER NODES: a line has fewer than 8 fields');
    const addr = fields[1]!;
    const at = addr.search(/[@,]/);
    const hostPort = at < 0 ? addr : addr.slice(0, at);
    const real = splitHostPort(hostPort);
    expectShape(real, 'CLUSTER NODES: an address is not ip:port');
    if (real.port === 0) return line;
    const listener = rb.address(real.host, real.port);
    if (!listener) return line;
    changed = true;
    // An empty host stays empty: the client reads it as the host it is connected to.
    fields[1] = `${real.host === '' ? '' : listener.host}:${listener.port}${at < 0 ? '' : withHostname(addr.slice(at), listener.host)}`;
    return fields.join(' ');
  });
  if (changed) rb.replace(node, out.join('\n'));
}

/** `@cport,hostname,aux=value...` with a non-empty hostname replaced by `host`; anything else as it was. */
function withHostname(rest: string, host: string): string {
  const comma = rest.indexOf(',');
  if (comma < 0) return rest;
  const end = rest.indexOf(',', comma + 1);
  const hostname = rest.slice(comma + 1, end < 0 ? undefined : end);
  if (hostname === '' || hostname.includes('=')) return rest;
  return `${rest.slice(0, comma + 1)}${host}${end < 0 ? '' : rest.slice(end)}`;
}

function isText(n: RespNode): boolean {
  return (n.type === '$' || n.type === '=' || n.type === '+') && n.text !== null;
}
