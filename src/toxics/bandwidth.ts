import { z } from 'zod';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition, ToxicByteStage } from './definition.js';
import { TimedQueue } from './timed-queue.js';

const ATTRS = attributesOf({
  rate: numberAttr({ default: 0, integer: true, unit: 'KB/s (1 KB = 1000 bytes, as toxiproxy computes it), 0 = unlimited' }),
});
export type BandwidthAttrs = z.output<typeof ATTRS>;

/**
 * toxiproxy's `bandwidth`: bytes leave no faster than `rate`. A chunk is cut into pieces of one
 * millisecond's worth, each handed on when it has been "sent" (toxiproxy cuts at 100 ms), so a
 * reader sees bytes trickle in as on a slow link rather than a whole chunk late.
 */
export const bandwidthToxic: ByteToxicDefinition<BandwidthAttrs> = {
  kind: 'byte',
  type: 'bandwidth',
  attributes: ATTRS,
  create: ({ scheduler, next, attrs }) => {
    const q = new TimedQueue(scheduler, next);
    let txFreeNs = -Infinity;
    const stage: ToxicByteStage = {
      push(chunk, nowNs) {
        const rate = attrs().rate; // bytes per millisecond
        if (rate <= 0) {
          q.push(chunk, Math.max(nowNs, q.lastDueNs), nowNs);
          return;
        }
        const piece = Math.max(1, Math.floor(rate));
        for (let at = 0; at < chunk.length; at += piece) {
          const part = chunk.subarray(at, Math.min(chunk.length, at + piece));
          txFreeNs = Math.max(nowNs, txFreeNs) + (part.length / rate) * 1e6;
          q.push(part, txFreeNs, nowNs);
        }
      },
      end: (kind, nowNs) => q.push(kind, Math.max(nowNs, q.lastDueNs), nowNs),
      // As toxiproxy's restarted pipe, whose count of time owed starts at 0: what is held leaves
      // from now at the new rate (at once with rate 0).
      restart(nowNs) {
        txFreeNs = -Infinity;
        for (const { item } of q.takeAll()) {
          if (typeof item === 'string') stage.end(item, nowNs);
          else stage.push(item, nowNs);
        }
      },
      drain: (nowNs) => q.drain(nowNs),
      destroy: () => q.destroy(),
      get pendingBytes() {
        return q.pendingBytes;
      },
    };
    return stage;
  },
};
