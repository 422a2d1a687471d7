import { z } from 'zod';
import { attributesOf, numberAttr } from './attributes.js';
import type { EndKind } from '../stage/types.js';
import type { ByteToxicDefinition, ToxicByteStage } from './definition.js';
import { TimedQueue } from './timed-queue.js';

const ATTRS = attributesOf({
  rate: numberAttr({ default: 0, integer: true, unit: 'KB/s (1 KB = 1000 bytes, as toxiproxy computes it), 0 = nothing passes' }),
});
export type BandwidthAttrs = z.output<typeof ATTRS>;

/**
 * toxiproxy's `bandwidth`: bytes leave no faster than `rate`. A chunk is cut into pieces of one
 * millisecond's worth, each handed on when it has been "sent" (toxiproxy cuts at 100 ms), so a
 * reader sees bytes trickle in as on a slow link rather than a whole chunk late.
 *
 * `rate` 0 passes nothing, the end included, until an update or the toxic's removal lets it go:
 * toxiproxy's loop cuts empty pieces of `rate * 100` bytes forever. Clients rely on it to cut a
 * connection: Testcontainers' `ContainerProxy.setConnectionCut(true)` adds a bandwidth toxic of
 * rate 0 each way, and its tests expect the client's request to fail.
 */
export const bandwidthToxic: ByteToxicDefinition<BandwidthAttrs> = {
  kind: 'byte',
  type: 'bandwidth',
  attributes: ATTRS,
  create: ({ scheduler, next, attrs }) => {
    const q = new TimedQueue(scheduler, next);
    let txFreeNs = -Infinity;
    /** What came while the rate was 0, in order (no timer: nothing is due). */
    let held: (Buffer | EndKind)[] = [];
    let heldBytes = 0;
    const hold = (item: Buffer | EndKind): void => {
      held.push(item);
      if (typeof item !== 'string') heldBytes += item.length;
    };
    const takeHeld = (): (Buffer | EndKind)[] => {
      const items = held;
      held = [];
      heldBytes = 0;
      return items;
    };
    const stage: ToxicByteStage = {
      push(chunk, nowNs) {
        const rate = attrs().rate; // bytes per millisecond
        if (rate <= 0) return hold(chunk);
        const piece = Math.max(1, Math.floor(rate));
        for (let at = 0; at < chunk.length; at += piece) {
          const part = chunk.subarray(at, Math.min(chunk.length, at + piece));
          txFreeNs = Math.max(nowNs, txFreeNs) + (part.length / rate) * 1e6;
          q.push(part, txFreeNs, nowNs);
        }
      },
      end: (kind, nowNs) => (attrs().rate <= 0 ? hold(kind) : q.push(kind, Math.max(nowNs, q.lastDueNs), nowNs)),
      // As toxiproxy's restarted pipe, whose count of time owed starts at 0: what is held leaves
      // from now at the new rate (held on with rate 0).
      restart(nowNs) {
        txFreeNs = -Infinity;
        for (const item of [...q.takeAll().map((h) => h.item), ...takeHeld()]) {
          if (typeof item === 'string') stage.end(item, nowNs);
          else stage.push(item, nowNs);
        }
      },
      // Removed (or rolled off by an update): everything goes now, as toxiproxy's interrupted pipe hands on what it holds.
      drain(nowNs) {
        q.drain(nowNs);
        for (const item of takeHeld()) {
          if (typeof item === 'string') next.end(item, nowNs);
          else next.push(item, nowNs);
        }
      },
      destroy: () => {
        q.destroy();
        takeHeld();
      },
      get pendingBytes() {
        return q.pendingBytes + heldBytes;
      },
    };
    return stage;
  },
};
