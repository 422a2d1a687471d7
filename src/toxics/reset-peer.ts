import { numberAttr } from './attributes.js';
import type { ByteToxicDefinition } from './definition.js';
import type { EndKind, Timer } from '../stage/types.js';

export interface ResetPeerAttrs {
  /** Milliseconds after the first data (or the end) before the RST; 0 = at once. */
  timeout: number;
}

/**
 * toxiproxy's `reset_peer`: the first thing to arrive in its direction (data or the end) starts a
 * timer; when it fires the connection is reset (RST, as SO_LINGER 0 does). Data from the first
 * chunk on is dropped, as toxiproxy's stub stops reading.
 */
export const resetPeerToxic: ByteToxicDefinition<ResetPeerAttrs> = {
  kind: 'byte',
  type: 'reset_peer',
  parse: (raw) => ({ timeout: numberAttr(raw, 'timeout', { default: 0, unit: 'milliseconds' }) }),
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
