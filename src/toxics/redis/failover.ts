import { z } from 'zod';
import { attributesOf, numberAttr, oneOfAttr } from '../attributes.js';
import type { FrameToxicDefinition } from '../definition.js';
import { liveMatcher, MATCH_ATTRS } from './match.js';
import { servedWhileDown } from './served-while-down.js';

export const FAILOVER_MODES = ['refuse', 'loading', 'masterdown'] as const;
export type FailoverMode = (typeof FAILOVER_MODES)[number];

const ATTRS = attributesOf({
  ...MATCH_ATTRS,
  duration: numberAttr({ unit: 'milliseconds' }).describe('Milliseconds the failover lasts from when the toxic is added (or updated).'),
  mode: oneOfAttr(FAILOVER_MODES, 'refuse'),
});
export type FailoverAttrs = z.output<typeof ATTRS>;

/** The replies a Redis gives while it loads its dataset or has lost its master (replica-serve-stale-data no). */
export const FAILOVER_REPLIES: Record<Exclude<FailoverMode, 'refuse'>, string> = {
  loading: '-LOADING Redis is loading the dataset in memory\r\n',
  masterdown: "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n",
};

/**
 * A failover window that ends by itself, and starts again at an update. `refuse`: connections
 * alive when it starts, and those accepted during it, are reset (a client sees its connects fail until the window ends).
 * `loading` / `masterdown`: matching commands are answered with that error; with no `commands`
 * given, those such a Redis refuses (served-while-down.ts). After `duration` the toxic stays listed
 * but does nothing.
 */
export const failoverToxic: FrameToxicDefinition<FailoverAttrs> = {
  kind: 'frame',
  type: 'failover',
  attributes: ATTRS,
  create: ({ attrs, applies, conn, sinceNs }) => {
    const active = (): boolean => conn.nowNs() < sinceNs() + attrs().duration * 1e6;
    // A window that starts (the toxic added, or updated) resets the connections open then, idle ones too.
    const refuseNow = (): void => {
      if (attrs().mode === 'refuse' && active() && applies()) conn.close('reset');
    };
    refuseNow();
    const match = liveMatcher(attrs);
    return {
      restart: refuseNow,
      onRequest: (req) => {
        if (!active() || !match(req) || !applies()) return { kind: 'forward' };
        const mode = attrs().mode;
        if (mode === 'refuse') {
          conn.close('reset');
          return { kind: 'drop' };
        }
        // "Every command" is every one such a Redis refuses: its connect and ready check still work.
        if (attrs().commands.length === 0 && servedWhileDown(mode, req)) return { kind: 'forward' };
        return { kind: 'answer', reply: Buffer.from(FAILOVER_REPLIES[mode]) };
      },
    };
  },
};
