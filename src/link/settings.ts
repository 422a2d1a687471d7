import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { parseWith, wholeNumber } from '../validation/schema.js';
import { BANDWIDTH_BPS, LOSS_FRACTION } from '../units.js';
import { PARTITION_FIELDS } from './partition.js';
import { findPreset, PRESET_NAMES } from './presets.js';
import { JITTER_DISTS, NO_DELAY, type JitterDist, type LinkSettings } from './types.js';

const MAX_DELAY_US = 3_600_000_000;
/** IPv4's minimum MTU (576) less 40 header bytes; above 65535 a segment no longer fits an IP packet. */
const MIN_MSS_BYTES = 536;
const MAX_MSS_BYTES = 65_535;
const MAX_BURST_SEGMENTS = 1_000_000;
/** One message for a burst that is no number and one out of range: `--loss-burst x` and `-2` read as `0.5` does. */
const BURST_ACCEPTS = `a mean burst length from 1 to ${MAX_BURST_SEGMENTS} segments, or 0 for independent losses`;

const delayUs = (what: string) =>
  z
    .number({ error: `microseconds from 0 to ${MAX_DELAY_US}` })
    .min(0)
    .max(MAX_DELAY_US)
    .transform(Math.round)
    .describe(what);

/**
 * A partial change to a link, as setLink(), PUT /link, a config file's and the `link` option take
 * it: the one definition of its keys, their types and what each accepts. An unknown key (`rtt` for
 * `rttUs`) is refused, naming the key, rather than dropped as if the link were as asked.
 */
const LINK_UPDATE_SHAPE = {
  rttUs: delayUs('Round-trip time: sets upUs and downUs to half each (odd microseconds: down gets the extra).').optional(),
  upUs: delayUs('One-way delay client -> Redis, microseconds.').optional(),
  downUs: delayUs('One-way delay Redis -> client, microseconds.').optional(),
  jitterUs: delayUs('Jitter scale per direction, microseconds (0 = none); the mean delay stays upUs/downUs.').optional(),
  jitterDist: z.enum(JITTER_DISTS as [JitterDist, ...JitterDist[]], { error: JITTER_DISTS.join(' | ') }).optional(),
  bandwidthBps: BANDWIDTH_BPS.describe('Per-direction rate limit in bits per second (0 = unlimited).').optional(),
  loss: LOSS_FRACTION.describe('Segment loss both ways, in [0, 1) (0.01 or "1%"); lost segments are resent as Linux TCP would.').optional(),
  lossUp: LOSS_FRACTION.describe('Segment loss client -> Redis, in [0, 1).').optional(),
  lossDown: LOSS_FRACTION.describe('Segment loss Redis -> client, in [0, 1).').optional(),
  lossBurst: z
    .number({ error: BURST_ACCEPTS })
    .refine((n) => n === 0 || (n >= 1 && n <= MAX_BURST_SEGMENTS), { error: BURST_ACCEPTS })
    .describe('Mean length of a run of lost segments (0 = independent losses).')
    .optional(),
  mssBytes: wholeNumber(MIN_MSS_BYTES, MAX_MSS_BYTES).describe('Segment size the loss model cuts chunks into, bytes.').optional(),
  preset: z
    .enum(PRESET_NAMES as [string, ...string[]], { error: PRESET_NAMES.join(' | ') })
    .describe('A named link (applied first; explicit keys win).')
    .optional(),
  // Not settings: a partition starts now and ends on its own (the proxy runs it, partitions.ts).
  ...PARTITION_FIELDS,
};
export const LINK_UPDATE = z.strictObject(LINK_UPDATE_SHAPE, {
  error: (issue) => (issue.code === 'unrecognized_keys' ? `a link key: ${Object.keys(LINK_UPDATE_SHAPE).join(', ')}` : 'an object of link settings'),
});

/**
 * Applies a partial update (optionally naming a preset) to settings, validating every field
 * (ConfigError naming the key). Order: preset, then rttUs, then explicit upUs/downUs, so
 * `--rtt 1ms --up 0.3ms` means up 0.3, down 0.5; likewise `loss`, then lossUp/lossDown.
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
  if (u.loss !== undefined) next.lossUp = next.lossDown = u.loss;
  if (u.lossUp !== undefined) next.lossUp = u.lossUp;
  if (u.lossDown !== undefined) next.lossDown = u.lossDown;
  if (u.lossBurst !== undefined) next.lossBurst = u.lossBurst;
  if (u.mssBytes !== undefined) next.mssBytes = u.mssBytes;
  checkBurstHoldsLoss(next);
  return next;
}

/**
 * A chain whose runs of losses last L segments on average loses at most L / (L + 1) of them (its
 * good state would have to lose more than every segment): `--loss 60% --loss-burst 1.2` could only
 * give 54.5%, so it is refused, naming the burst, rather than run at a rate nobody asked for.
 */
function checkBurstHoldsLoss(s: LinkSettings): void {
  const burst = s.lossBurst;
  if (burst === 0) return;
  const rate = Math.max(s.lossUp, s.lossDown);
  if (rate <= burst / (burst + 1)) return;
  // Rounded up to 0.001, after the float's noise is off (0.8 / 0.2 is 4.000000000000001, and 4 holds 0.8).
  const leastBurst = Math.ceil(Math.round((rate / (1 - rate)) * 1e9) / 1e6) / 1000;
  throw new ConfigError('lossBurst', burst, `a mean burst of at least ${leastBurst} segments for a loss of ${rate} (runs of L lost segments hold at most L / (L + 1) of them), or 0`);
}

export function defaultLinkSettings(): LinkSettings {
  return { ...NO_DELAY };
}

/** Splits a round trip into one-way delays; an odd microsecond goes to the down direction. */
export function splitRtt(rttUs: number): { upUs: number; downUs: number } {
  const upUs = Math.floor(rttUs / 2);
  return { upUs, downUs: rttUs - upUs };
}
