import { z } from 'zod';
import { parseWith } from '../validation/schema.js';
import { BANDWIDTH_BPS } from '../units.js';
import { PARTITION_FIELDS } from './partition.js';
import { findPreset, PRESET_NAMES } from './presets.js';
import { splitRtt } from './link-spec.js';
import { JITTER_DISTS, NO_DELAY, type JitterDist, type LinkSettings } from './types.js';

const MAX_DELAY_US = 3_600_000_000;

const delayUs = (what: string) =>
  z
    .number({ error: `microseconds from 0 to ${MAX_DELAY_US}` })
    .min(0)
    .max(MAX_DELAY_US)
    .transform(Math.round)
    .describe(what);

/**
 * A partial change to a link, as setLink(), PUT /link and the `link` option take it: the one
 * definition of its keys, their types and what each accepts. Unknown keys are dropped (the control
 * endpoint refuses them itself, naming the keys it accepts).
 */
export const LINK_UPDATE = z.object(
  {
    rttUs: delayUs('Round-trip time: sets upUs and downUs to half each (odd microseconds: down gets the extra).').optional(),
    upUs: delayUs('One-way delay client -> Redis, microseconds.').optional(),
    downUs: delayUs('One-way delay Redis -> client, microseconds.').optional(),
    jitterUs: delayUs('Jitter scale per direction, microseconds (0 = none); the mean delay stays upUs/downUs.').optional(),
    jitterDist: z.enum(JITTER_DISTS as [JitterDist, ...JitterDist[]], { error: JITTER_DISTS.join(' | ') }).optional(),
    bandwidthBps: BANDWIDTH_BPS.describe('Per-direction rate limit in bits per second (0 = unlimited).').optional(),
    preset: z
      .enum(PRESET_NAMES as [string, ...string[]], { error: PRESET_NAMES.join(' | ') })
      .describe('A named link (applied first; explicit keys win).')
      .optional(),
    // Not settings: a partition starts now and ends on its own (the proxy runs it, partitions.ts).
    ...PARTITION_FIELDS,
  },
  { error: 'an object of link settings' },
);

/**
 * Applies a partial update (optionally naming a preset) to settings, validating every field
 * (ConfigError naming the key). Order: preset, then rttUs, then explicit upUs/downUs, so
 * `--rtt 1ms --up 0.3ms` means up 0.3, down 0.5.
 */
export function applyLinkUpdate(base: LinkSettings, update: z.input<typeof LINK_UPDATE>): LinkSettings {
  const u = parseWith(LINK_UPDATE, update, (path) => (path.length === 0 ? 'link' : path.join('.')));
  // Everything is computed into a copy; the caller stores it only if nothing threw, so a rejected
  // update changes nothing.
  const next: LinkSettings = { ...base };
  if (u.preset !== undefined) Object.assign(next, splitRtt(findPreset(u.preset)!.rttUs));
  if (u.rttUs !== undefined) Object.assign(next, splitRtt(u.rttUs));
  if (u.upUs !== undefined) next.upUs = u.upUs;
  if (u.downUs !== undefined) next.downUs = u.downUs;
  if (u.jitterUs !== undefined) next.jitterUs = u.jitterUs;
  if (u.jitterDist !== undefined) next.jitterDist = u.jitterDist;
  if (u.bandwidthBps !== undefined) next.bandwidthBps = u.bandwidthBps;
  return next;
}

export function defaultLinkSettings(): LinkSettings {
  return { ...NO_DELAY };
}
