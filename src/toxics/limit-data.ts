import { z } from 'zod';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';

const ATTRS = attributesOf({
  bytes: numberAttr({ default: 0, integer: true, unit: 'bytes' }).describe('Bytes let through in its direction before the connection closes.'),
});
export type LimitDataAttrs = z.output<typeof ATTRS>;

/**
 * toxiproxy's `limit_data`: passes the first `bytes` bytes of its direction, then closes the
 * connection (a FIN after them). Like toxiproxy it checks when data arrives, so `bytes: 0` closes
 * on the first chunk. The bytes it passed are counted per connection across restarts (`kept`), as
 * toxiproxy's state is: an update's roll that turns it off and on again does not start the count
 * over, and bytes passed while it was off are not counted.
 */
export const limitDataToxic: ByteToxicDefinition<LimitDataAttrs> = {
  kind: 'byte',
  type: 'limit_data',
  attributes: ATTRS,
  create: ({ conn, next, attrs, kept }) => {
    const sentBytes = (): number => kept.sentBytes ?? 0;
    let closed = false;
    return {
      push(chunk, nowNs) {
        if (closed) return;
        const room = Math.max(0, attrs().bytes - sentBytes());
        const part = room < chunk.length ? chunk.subarray(0, room) : chunk;
        if (part.length > 0) {
          next.push(part, nowNs);
          kept.sentBytes = sentBytes() + part.length;
        }
        if (sentBytes() >= attrs().bytes) {
          closed = true;
          next.end('end', nowNs);
          conn.close('end');
        }
      },
      end: (kind, nowNs) => {
        if (closed) return;
        closed = true;
        next.end(kind, nowNs);
      },
      drain: () => undefined,
      destroy: () => undefined,
      pendingBytes: 0,
    };
  },
};
