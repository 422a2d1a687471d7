import { numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import { TimedQueue } from './timed-queue.js';

export interface SlowCloseAttrs {
  /** Milliseconds the close (FIN or RST) is held after the data before it. */
  delay: number;
}

/** toxiproxy's `slow_close`: data passes at once; the end of the stream waits `delay` ms. */
export const slowCloseToxic: ByteToxicDefinition<SlowCloseAttrs> = {
  kind: 'byte',
  type: 'slow_close',
  parse: (raw) => ({ delay: numberAttr(raw, 'delay', { default: 0, unit: 'milliseconds' }) }),
  create: ({ scheduler, next, attrs }) => {
    const q = new TimedQueue(scheduler, next);
    return {
      push: (chunk, nowNs) => q.push(chunk, Math.max(nowNs, q.lastDueNs), nowNs),
      end: (kind, nowNs) => q.push(kind, Math.max(nowNs + attrs().delay * 1e6, q.lastDueNs), nowNs),
      drain: (nowNs) => q.drain(nowNs),
      destroy: () => q.destroy(),
      get pendingBytes() {
        return q.pendingBytes;
      },
    };
  },
};
