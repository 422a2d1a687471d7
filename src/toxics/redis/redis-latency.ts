import type { ReplyAction, Timer } from '../../stage/types.js';
import type { z } from 'zod';
import { attributesOf, numberAttr } from '../attributes.js';
import type { FrameToxicDefinition } from '../definition.js';
import { HitSeqs } from './hit-seqs.js';
import { liveMatcher, MATCH_ATTRS } from './match.js';

const ATTRS = attributesOf({
  ...MATCH_ATTRS,
  latency: numberAttr({ default: 0, unit: 'milliseconds, fractions allowed' }).describe("Milliseconds added to each matching command's reply; fractions allowed."),
});
export type RedisLatencyAttrs = z.output<typeof ATTRS>;

/**
 * Delays the replies of matching commands, as a slow command would on the server. The chain holds
 * every reply behind a held one, so what queued behind it on that connection is late too, as on a
 * single-threaded Redis, and a matching reply's hold starts only once the one before it was let go
 * (the chain runs a reply through the stages when every reply before it is through). Which commands
 * are hit is decided when each request passes.
 */
export const redisLatencyToxic: FrameToxicDefinition<RedisLatencyAttrs> = {
  kind: 'frame',
  type: 'redis_latency',
  attributes: ATTRS,
  create: ({ attrs, applies, scheduler, conn }) => {
    const match = liveMatcher(attrs);
    const hits = new HitSeqs();
    /** Each held reply's timer, with when its hold began. */
    const timers = new Map<Timer, number>();
    const release = new Set<() => void>();
    void conn.closed.then(() => {
      for (const r of release) r();
    });
    return {
      onRequest: (req) => {
        if (match(req) && applies()) hits.add(req.seq);
        return { kind: 'forward' };
      },
      onReply: (reply) => {
        if (!reply.request || !hits.take(reply.request.seq)) return { kind: 'pass' };
        return new Promise<ReplyAction>((resolve) => {
          const done = (): void => {
            timers.delete(t);
            release.delete(done);
            resolve({ kind: 'pass' });
          };
          const nowNs = scheduler.clock.nowNs();
          const t = scheduler.schedule(nowNs + attrs().latency * 1e6, done);
          timers.set(t, nowNs);
          release.add(done);
        });
      },
      // Updated: a held reply leaves the new latency after its hold began (at once when that has passed), as
      // the byte latency toxic re-times what it holds.
      restart: () => {
        for (const [t, heldSinceNs] of timers) scheduler.arm(t, heldSinceNs + attrs().latency * 1e6);
      },
      destroy: () => {
        for (const t of timers.keys()) scheduler.cancel(t);
        timers.clear();
        for (const r of release) r();
      },
    };
  },
};
