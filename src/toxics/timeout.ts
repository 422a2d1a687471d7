import type { z } from 'zod';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import type { Timer } from '../stage/types.js';

const ATTRS = attributesOf({
  timeout: numberAttr({ default: 0, integer: true, unit: 'milliseconds, 0 = never close' }).describe(
    'Milliseconds until the connection closes; 0 = never (data is still dropped).',
  ),
});
export type TimeoutAttrs = z.output<typeof ATTRS>;

/**
 * toxiproxy's `timeout`: from the moment it applies, every byte in its direction is dropped (lost,
 * not held), and after `timeout` ms the connection closes. Removing it closes the connection too,
 * as toxiproxy's cleanup does: the bytes it swallowed can never be delivered, so the stream is broken.
 */
export const timeoutToxic: ByteToxicDefinition<TimeoutAttrs> = {
  kind: 'byte',
  type: 'timeout',
  attributes: ATTRS,
  create: ({ conn, next, scheduler, attrs }) => {
    const ms = attrs().timeout;
    let timer: Timer | undefined = ms > 0 ? scheduler.schedule(scheduler.clock.nowNs() + ms * 1e6, () => conn.close('end')) : undefined;
    const cancel = (): void => {
      if (timer) scheduler.cancel(timer);
      timer = undefined;
    };
    return {
      push: () => undefined,
      end: (kind, nowNs) => next.end(kind, nowNs),
      drain: () => {
        cancel();
        conn.close('end');
      },
      destroy: cancel,
      pendingBytes: 0,
    };
  },
};
