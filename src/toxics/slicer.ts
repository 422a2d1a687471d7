import { z } from 'zod';
import type { Uniform } from '../link/rng.js';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import { TimedQueue } from './timed-queue.js';

const ATTRS = attributesOf({
  average_size: numberAttr({ default: 0, integer: true, unit: 'bytes' }).describe('Mean slice size, bytes (below 1 acts as 1).'),
  size_variation: numberAttr({ default: 0, integer: true, unit: 'bytes' }).describe(
    'Slices vary by up to this many bytes either way (at most average_size - 1 is applied).',
  ),
  delay: numberAttr({ default: 0, integer: true, unit: 'microseconds' }).describe('Microseconds between slices.'),
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

/**
 * What holding one slice costs besides its bytes (a Buffer view and its queue entries), counted
 * toward --high-water: one-byte slices cost far more than a byte each, and counted as bytes alone
 * the high-water mark let the proxy hold that many of them.
 */
const SLICE_COST_BYTES = 160;

/** toxiproxy's `slicer`: each chunk leaves as slices of about `average_size` bytes, `delay` us apart. */
export const slicerToxic: ByteToxicDefinition<SlicerAttrs> = {
  kind: 'byte',
  type: 'slicer',
  attributes: ATTRS,
  // A size of 0 would halve a 1-byte piece forever (toxiproxy's recursion never ends there), and a
  // variation of average_size or more can put a cut at or before the piece's start; below that,
  // every cut leaves both halves non-empty.
  applied: (a) => {
    const average_size = Math.max(1, a.average_size);
    return { ...a, average_size, size_variation: Math.min(a.size_variation, average_size - 1) };
  },
  // As toxiproxy's pipe, which sleeps `delay` after writing each slice: a slice leaves `delay` after
  // the one before it left, so slices that fall behind (a late timer) still leave one at a time.
  create: ({ scheduler, next, uniform, attrs }) => {
    const q = new TimedQueue(scheduler, next, () => attrs().delay * 1000);
    return {
      push(chunk, nowNs) {
        let from = 0;
        for (const to of sliceEnds(0, chunk.length, attrs(), uniform)) {
          q.push(chunk.subarray(from, to), nowNs, nowNs);
          from = to;
        }
      },
      end: (kind, nowNs) => q.push(kind, Math.max(nowNs, q.lastDueNs), nowNs),
      drain: (nowNs) => q.drain(nowNs),
      destroy: () => q.destroy(),
      get pendingBytes() {
        return q.pendingBytes + q.heldItems * SLICE_COST_BYTES;
      },
    };
  },
};
