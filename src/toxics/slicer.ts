import { z } from 'zod';
import type { Uniform } from '../link/rng.js';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import { TimedQueue } from './timed-queue.js';

const ATTRS = attributesOf({
  average_size: numberAttr({ min: 1, integer: true, unit: 'bytes' }).describe('Mean slice size, bytes.'),
  size_variation: numberAttr({ default: 0, integer: true, unit: 'bytes' }).describe('Slices vary by up to this many bytes either way; less than average_size.'),
  delay: numberAttr({ default: 0, unit: 'microseconds' }).describe('Microseconds between slices.'),
})
  .superRefine((a, ctx) => {
    if (a.size_variation >= a.average_size) {
      ctx.addIssue({ code: 'custom', path: ['size_variation'], message: `an integer below average_size (${a.average_size})` });
    }
  });
export type SlicerAttrs = z.output<typeof ATTRS>;

/**
 * Cut points for [start, end) by toxiproxy's recursive halving: a piece within `variation` of the
 * average stays whole, a longer one splits near its middle (+- variation) and both halves recurse.
 * Returns the end offsets of the slices.
 */
export function sliceEnds(start: number, end: number, a: SlicerAttrs, uniform: Uniform, out: number[] = []): number[] {
  if (end - start - a.average_size <= a.size_variation) {
    out.push(end);
    return out;
  }
  const v = a.size_variation;
  const mid = start + Math.floor((end - start) / 2) + (v > 0 ? Math.floor(uniform() * 2 * v) - v : 0);
  sliceEnds(start, mid, a, uniform, out);
  return sliceEnds(mid, end, a, uniform, out);
}

/** toxiproxy's `slicer`: each chunk leaves as slices of about `average_size` bytes, `delay` us apart. */
export const slicerToxic: ByteToxicDefinition<SlicerAttrs> = {
  kind: 'byte',
  type: 'slicer',
  attributes: ATTRS,
  create: ({ scheduler, next, uniform, attrs }) => {
    const q = new TimedQueue(scheduler, next);
    let nextFreeNs = -Infinity;
    return {
      push(chunk, nowNs) {
        const a = attrs();
        let from = 0;
        for (const to of sliceEnds(0, chunk.length, a, uniform)) {
          const due = Math.max(nowNs, nextFreeNs);
          q.push(chunk.subarray(from, to), due, nowNs);
          nextFreeNs = due + a.delay * 1000;
          from = to;
        }
      },
      end: (kind, nowNs) => q.push(kind, Math.max(nowNs, q.lastDueNs), nowNs),
      drain: (nowNs) => q.drain(nowNs),
      destroy: () => q.destroy(),
      get pendingBytes() {
        return q.pendingBytes;
      },
    };
  },
};
