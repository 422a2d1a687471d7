import type { z } from 'zod';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import type { Timer } from '../stage/types.js';

const ATTRS = attributesOf({
  timeout: numberAttr({ default: 0, integer: true, unit: 'milliseconds, 0 = never close' }).describe(
    'Milliseconds after the last chunk dropped (or the start) until the connection closes; 0 = never.',
  ),
});
export type TimeoutAttrs = z.output<typeof ATTRS>;

/**
 * toxiproxy's `timeout`: from the moment it applies, every byte in its direction is dropped (lost,
 * not held), and `timeout` ms after it applied or after the last chunk it dropped, whichever is later,
 * the connection closes: toxiproxy's pipe waits on a new `time.After(timeout)` for each chunk, so a
 * client that keeps sending keeps the connection open. An update starts the wait again with the new
 * value. Removing it closes the connection, as toxiproxy's cleanup does: the bytes it swallowed can
 * never be delivered, so the stream is broken.
 */
export const timeoutToxic: ByteToxicDefinition<TimeoutAttrs> = {
  kind: 'byte',
  type: 'timeout',
  attributes: ATTRS,
  create: ({ conn, next, scheduler, attrs }) => {
    let timer: Timer | undefined;
    const cancel = (): void => {
      if (timer) scheduler.cancel(timer);
      timer = undefined;
    };
    let ended = false;
    const arm = (nowNs: number): void => {
      const ms = attrs().timeout;
      if (ms <= 0 || ended) cancel();
      else if (timer) scheduler.arm(timer, nowNs + ms * 1e6);
      else timer = scheduler.schedule(nowNs + ms * 1e6, () => conn.close('end'));
    };
    arm(scheduler.clock.nowNs());
    return {
      push: (_chunk, nowNs) => arm(nowNs),
      end: (kind, nowNs) => {
        ended = true;
        cancel();
        next.end(kind, nowNs);
      },
      restart: arm,
      // Rolled off by an update: toxiproxy's pipe stops without its cleanup; what it dropped stays lost.
      release: cancel,
      drain: () => {
        cancel();
        conn.close('end');
      },
      destroy: cancel,
      pendingBytes: 0,
    };
  },
};
