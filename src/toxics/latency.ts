import { z } from 'zod';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import { TimedQueue } from './timed-queue.js';

const ATTRS = attributesOf({
  latency: numberAttr({ default: 0, unit: 'milliseconds, fractions allowed' }).describe('Milliseconds added to each chunk; fractions allowed (0.1 = 100 us).'),
  jitter: numberAttr({ default: 0, unit: 'milliseconds, fractions allowed' }).describe(
    'Milliseconds either side of `latency`, uniform; the mean stays `latency` (unless floored at 0).',
  ),
});
export type LatencyAttrs = z.output<typeof ATTRS>;

/**
 * toxiproxy's `latency`: each chunk is stamped on arrival and leaves `latency +- jitter` later, never
 * before the chunk ahead of it. toxiproxy draws whole milliseconds from [latency - jitter,
 * latency + jitter - 1] (0.5 ms low on average); here the draw is continuous and centred, so the
 * mean is the configured latency.
 */
export const latencyToxic: ByteToxicDefinition<LatencyAttrs> = {
  kind: 'byte',
  type: 'latency',
  attributes: ATTRS,
  create: ({ scheduler, next, uniform, attrs }) => {
    const q = new TimedQueue(scheduler, next);
    const delayNs = (): number => {
      const a = attrs();
      return (a.jitter > 0 ? Math.max(0, a.latency + a.jitter * (2 * uniform() - 1)) : a.latency) * 1e6;
    };
    return {
      push(chunk, nowNs) {
        q.push(chunk, Math.max(nowNs + delayNs(), q.lastDueNs), nowNs);
      },
      end: (kind, nowNs) => q.push(kind, Math.max(nowNs, q.lastDueNs), nowNs),
      // As toxiproxy's restarted pipe: each chunk still held leaves the new delay after its arrival
      // (at once when that has passed), so lowering the latency speeds up what is queued.
      restart(nowNs) {
        for (const { item, pushedNs } of q.takeAll()) {
          const due = typeof item === 'string' ? nowNs : pushedNs + delayNs();
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
