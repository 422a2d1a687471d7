import { RewriteBuffer } from '../cluster/rewrite-common.js';
import { isArray } from '../cluster/rewrite-slots.js';
import { parseFrame, RespTreeError, type RespNode } from '../resp/reply-tree.js';
import { finish, instanceName, isInstanceAddress } from './rewrite-reply.js';
import type { SentinelBuffers, SentinelRewriteContext, SentinelRewriteResult } from './types.js';

const INSTANCE_TYPES = new Set(['master', 'slave', 'replica', 'sentinel']);
const PORT = /^\d{1,5}$/;

/**
 * Rewrites the addresses in a Sentinel event: a pub/sub `message` or `pmessage` (a RESP2 array
 * or a RESP3 push) whose payload has one of the two shapes Sentinel publishes, whatever the
 * channel:
 * - `<type> <name> <ip> <port> [@ <master-name> <master-ip> <master-port>]`, type master, slave
 *   or sentinel (`+sdown`, `+slave`, `+sentinel`, `+odown`, `+slave-reconf-done`, ...): the
 *   instance's ip and port, its name when that is `ip:port` (`[ip]:port`), and the master's ip and port;
 * - `<master-name> <old-ip> <old-port> <new-ip> <new-port>` (`+switch-master`): both addresses;
 * - `master <name> <ip> <port> ip <ip> port <port> for <run id>` (`+sentinel-address-switch`, a sentinel
 *   seen at a new address): the master's and the sentinel's. It went out with the sentinel's real address.
 * Every other frame, and every other payload (`+new-epoch 5`, `+tilt`), is unchanged.
 */
export function rewriteSentinelEvent(bytes: Buffer, ctx: SentinelRewriteContext): SentinelRewriteResult {
  const unchanged: SentinelRewriteResult = { bytes, kind: undefined, missing: { nodes: [], sentinels: [] } };
  let root: RespNode;
  try {
    root = parseFrame(bytes);
  } catch (err) {
    if (err instanceof RespTreeError) return unchanged;
    throw err;
  }
  const payload = messagePayload(root);
  if (payload === undefined || payload.text === null) return unchanged;
  const rb: SentinelBuffers = { nodes: new RewriteBuffer(ctx.nodes), sentinels: new RewriteBuffer(ctx.sentinels) };
  const tokens = payload.text.split(' ');
  if (tokens.length >= 4 && INSTANCE_TYPES.has(tokens[0]!) && PORT.test(tokens[3]!)) {
    const before = instanceName(tokens[2]!, tokens[3]!);
    swap(tokens, 2, tokens[0] === 'sentinel' ? rb.sentinels : rb.nodes);
    if (tokens[1] === before) tokens[1] = instanceName(tokens[2]!, tokens[3]!);
    if (tokens[4] === '@' && tokens.length >= 8) swap(tokens, 6, rb.nodes);
    // +sentinel-address-switch names the sentinel's new address after the master's, each part after its word.
    else if (tokens[4] === 'ip' && tokens[6] === 'port' && tokens[8] === 'for') swap(tokens, 5, rb.sentinels, 7);
  } else if (tokens.length === 5 && PORT.test(tokens[2]!) && PORT.test(tokens[4]!)) {
    swap(tokens, 1, rb.nodes);
    swap(tokens, 3, rb.nodes);
  }
  const text = tokens.join(' ');
  if (text !== payload.text) rb.nodes.replace(payload, text);
  return finish(bytes, rb, 'event');
}

/** The payload of `[message, channel, payload]` or `[pmessage, pattern, channel, payload]`. */
function messagePayload(root: RespNode): RespNode | undefined {
  if (!(root.type === '>' || isArray(root)) || !root.items) return undefined;
  const kind = root.items[0]?.text;
  if (kind === 'message' && root.items.length === 3) return root.items[2];
  if (kind === 'pmessage' && root.items.length === 4) return root.items[3];
  return undefined;
}

/** tokens[at] and tokens[portAt], a real host and port, become the listener's (left as they are while it has none). */
function swap(tokens: string[], at: number, rb: RewriteBuffer, portAt = at + 1): void {
  const port = tokens[portAt];
  if (port === undefined || tokens[at] === undefined || !isInstanceAddress(tokens[at], port)) return;
  const listener = rb.address(tokens[at]!, Number(port));
  if (!listener) return;
  tokens[at] = listener.host;
  tokens[portAt] = String(listener.port);
}

