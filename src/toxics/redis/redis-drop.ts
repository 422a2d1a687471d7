import type { ReplyAction } from '../../stage/types.js';
import { z } from 'zod';
import { attributesOf, boolAttr } from '../attributes.js';
import type { FrameToxicDefinition } from '../definition.js';
import { HitSeqs } from './hit-seqs.js';
import { liveMatcher, MATCH_ATTRS } from './match.js';

const ATTRS = attributesOf({
  ...MATCH_ATTRS,
  close: boolAttr(false).describe('Close the connection instead of leaving the client waiting.'),
});
export type RedisDropAttrs = z.output<typeof ATTRS>;

/**
 * Redis runs the matching command but its reply never comes: every later reply on the connection is
 * held too (a stuck server), until the client gives up and closes, so no reply can slide onto the
 * wrong request. With `close` the connection closes (FIN) at the dropped reply instead. A client that
 * pipelines on meanwhile is bounded by the frame chain: past FRAMED_REPLY_MAX_BYTES held behind the
 * dropped reply the connection closes as with `close` (ReplySequencer.onHeldTooMuch).
 */
export const redisDropToxic: FrameToxicDefinition<RedisDropAttrs> = {
  kind: 'frame',
  type: 'redis_drop',
  attributes: ATTRS,
  create: ({ attrs, applies, conn }) => {
    const match = liveMatcher(attrs);
    const hits = new HitSeqs();
    return {
      onRequest: (req) => {
        if (match(req) && applies()) hits.add(req.seq);
        return { kind: 'forward' };
      },
      onReply: (reply) => {
        if (!reply.request || !hits.take(reply.request.seq)) return { kind: 'pass' };
        if (attrs().close) conn.close('end');
        return conn.closed.then((): ReplyAction => ({ kind: 'drop' }));
      },
    };
  },
};
