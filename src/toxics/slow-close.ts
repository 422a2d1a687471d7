import { z } from 'zod';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import { TimedQueue } from './timed-queue.js';

const ATTRS = attributesOf({
  delay: numberAttr({ default: 0, integer: true, unit: 'milliseconds' }).describe('Milliseconds the close (FIN or RST) is held after the data before it.'),
});
export type SlowCloseAttrs = z.output<typeof ATTRS>;

/** toxiproxy's `slow_close`: data passes at once; the end of the stream waits `delay` ms. */
export const slowCloseToxic: ByteToxicDefinition<SlowCloseAttrs> = {
  kind: 'byte',
  type: 'slow_close',
  attributes: ATTRS,
  create: ({ scheduler, next, attrs }) => {
    const q = new TimedQueue(scheduler, next);
    return {
      push: (chunk, nowNs) => q.push(chunk, Math.max(nowNs, q.lastDueNs), nowNs),
      end: (kind, nowNs) => q.push(kind, Math.max(nowNs + attrs().delay * 1e6, q.lastDueNs), nowNs),
      // As toxiproxy's restarted pipe, which meets the end again and waits the new delay from then.
      restart(nowNs) {
        for (const { item, pushedNs } of q.takeAll()) {
          const due = typeof item === 'string' ? nowNs + attrs().delay * 1e6 : nowNs;
          q.push(item, Math.max(due, q.lastDueNs), nowNs, pushedNs);
        }
      },
      drain: (nowNs) => q.drain(nowNs),
      destroy: () => q.destroy(),
      get pendingBytes() {
        return q.pendingBytes;
      },
    };
  },
};
