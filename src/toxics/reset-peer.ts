import type { z } from 'zod';
import { attributesOf, numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import type { EndKind, Timer } from '../stage/types.js';

const ATTRS = attributesOf({
  timeout: numberAttr({ default: 0, integer: true, unit: 'milliseconds' }).describe('Milliseconds after the first data (or the end) before the RST; 0 = at once.'),
});
export type ResetPeerAttrs = z.output<typeof ATTRS>;

/**
 * toxiproxy's `reset_peer`: the first thing to arrive in its direction (data or the end) starts a
 * timer; when it fires the connection is reset (RST, as SO_LINGER 0 does). Data from the first
 * chunk on is dropped, as toxiproxy's stub stops reading.
 */
export const resetPeerToxic: ByteToxicDefinition<ResetPeerAttrs> = {
  kind: 'byte',
  type: 'reset_peer',
  attributes: ATTRS,
  create: ({ conn, scheduler, attrs }) => {
    let timer: Timer | undefined;
    let started = false;
    const start = (_x: Buffer | EndKind, nowNs: number): void => {
      if (started) return;
      started = true;
      const ms = attrs().timeout;
      if (ms <= 0) conn.close('reset');
      else timer = scheduler.schedule(nowNs + ms * 1e6, () => conn.close('reset'));
    };
    const cancel = (): void => {
      if (timer) scheduler.cancel(timer);
      timer = undefined;
    };
    return { push: start, end: start, drain: cancel, destroy: cancel, pendingBytes: 0 };
  },
};
