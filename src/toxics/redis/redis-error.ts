import { ConfigError } from '../../errors.js';
import { stringAttr } from '../attributes.js';
import type { FrameToxicDefinition } from '../definition.js';
import { liveMatcher, parseMatch, type MatchAttrs } from './match.js';

export interface RedisErrorAttrs extends MatchAttrs {
  /** The error reply, without the leading '-': "LOADING Redis is loading the dataset in memory". */
  error: string;
}

/**
 * Answers matching commands with an error reply; Redis never sees them. The chain makes the
 * injected reply wait for the replies to every earlier request, so a pipeline's order holds.
 */
export const redisErrorToxic: FrameToxicDefinition<RedisErrorAttrs> = {
  kind: 'frame',
  type: 'redis_error',
  parse: (raw) => {
    const error = stringAttr(raw, 'error', { required: true });
    if (/[\r\n]/.test(error)) throw new ConfigError('attributes.error', error, 'one line (no CR or LF)');
    return { ...parseMatch(raw), error };
  },
  create: ({ attrs, applies }) => {
    const match = liveMatcher(attrs);
    return {
      onRequest: (req) =>
        match(req) && applies() ? { kind: 'answer', reply: Buffer.from(`-${attrs().error}\r\n`) } : { kind: 'forward' },
    };
  },
};
