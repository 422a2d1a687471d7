import { z } from 'zod';
import { attributesOf, requiredStringAttr } from '../attributes.js';
import type { FrameToxicDefinition } from '../definition.js';
import { liveMatcher, MATCH_ATTRS } from './match.js';

const ATTRS = attributesOf({
  ...MATCH_ATTRS,
  error: requiredStringAttr()
    .refine((e) => !/[\r\n]/.test(e), { error: 'one line (no CR or LF)' })
    .describe(`The error reply, without the leading '-': "LOADING Redis is loading the dataset in memory".`),
});
export type RedisErrorAttrs = z.output<typeof ATTRS>;

/**
 * Answers matching commands with an error reply; Redis never sees them. The chain makes the
 * injected reply wait for the replies to every earlier request, so a pipeline's order holds.
 */
export const redisErrorToxic: FrameToxicDefinition<RedisErrorAttrs> = {
  kind: 'frame',
  type: 'redis_error',
  attributes: ATTRS,
  create: ({ attrs, applies }) => {
    const match = liveMatcher(attrs);
    return {
      onRequest: (req) =>
        match(req) && applies() ? { kind: 'answer', reply: Buffer.from(`-${attrs().error}\r\n`) } : { kind: 'forward' },
    };
  },
};
