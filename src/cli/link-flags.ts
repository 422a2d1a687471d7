import { Option, type Command } from 'commander';
import { parseJitterDist, parseLinkNumber } from '../link/link-spec.js';
import { PRESETS, PRESET_NAMES, findPreset } from '../link/presets.js';
import { JITTER_DISTS, type LinkUpdate } from '../link/types.js';
import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import { ConfigError } from '../errors.js';
import { parseBandwidthBps, parseDurationUs, parseLossFraction, parseNonNegativeInt } from '../units.js';

/** Flags that describe a link, shared by `proxy` (and anything else that starts one). */
export function addLinkFlags(cmd: Command): Command {
  return cmd
    .addOption(new Option('--preset <name>', `a named link: ${PRESET_NAMES.map((n) => `${n} (${PRESETS[n]!.rttUs / 1000} ms)`).join(', ')}; later flags override it`))
    .option('--rtt <duration>', 'round-trip time to add, split half up, half down (us, ms, s; e.g. 200us, 1.2ms)')
    .option('--up <duration>', 'one-way delay client -> Redis (overrides half of --rtt)')
    .option('--down <duration>', 'one-way delay Redis -> client (overrides half of --rtt)')
    .option('--jitter <duration>', 'jitter scale per direction; the mean delay stays the configured one', '0')
    .addOption(new Option('--jitter-dist <dist>', 'jitter distribution, shapes as netem defines them').choices([...JITTER_DISTS]).default('uniform'))
    .option('--bandwidth <rate>', 'per-direction rate limit adding serialization delay (tc units: 100mbit, 1gbit; 0 = unlimited)', '0')
    .option('--loss <p>', 'segment loss both ways, in [0, 1): 1% or 0.01; lost segments arrive when Linux TCP would resend them, no byte is dropped')
    .option('--loss-up <p>', 'segment loss client -> Redis (overrides --loss for that direction)')
    .option('--loss-down <p>', 'segment loss Redis -> client (overrides --loss for that direction)')
    .option('--loss-burst <segments>', 'mean length of a run of lost segments (0 = independent losses)')
    .option('--mss <bytes>', 'segment size the loss model cuts chunks into (default 1448)')
    .option('--seed <n>', 'seed for jitter and loss, to repeat a run exactly');
}

export interface LinkFlagValues {
  preset?: string;
  rtt?: string;
  up?: string;
  down?: string;
  jitter?: string;
  jitterDist?: string;
  bandwidth?: string;
  loss?: string;
  lossUp?: string;
  lossDown?: string;
  lossBurst?: string;
  mss?: string;
  seed?: string;
}

/** Turns parsed flags into a link update; every bad value names its flag. */
export function linkFromFlags(f: LinkFlagValues): { update: LinkUpdate & { preset?: string }; seed?: number } {
  const update: LinkUpdate & { preset?: string } = {};
  if (f.preset !== undefined) {
    if (!findPreset(f.preset)) throw new ConfigError('--preset', f.preset, PRESET_NAMES.join(' | '));
    update.preset = f.preset;
  }
  if (f.rtt !== undefined) update.rttUs = parseDurationUs(f.rtt, '--rtt');
  if (f.up !== undefined) update.upUs = parseDurationUs(f.up, '--up');
  if (f.down !== undefined) update.downUs = parseDurationUs(f.down, '--down');
  if (f.jitter !== undefined) update.jitterUs = parseDurationUs(f.jitter, '--jitter');
  if (f.jitterDist !== undefined) update.jitterDist = parseJitterDist(f.jitterDist, '--jitter-dist');
  if (f.bandwidth !== undefined) update.bandwidthBps = parseBandwidthBps(f.bandwidth, '--bandwidth');
  if (f.loss !== undefined) update.loss = parseLossFraction(f.loss, '--loss');
  if (f.lossUp !== undefined) update.lossUp = parseLossFraction(f.lossUp, '--loss-up');
  if (f.lossDown !== undefined) update.lossDown = parseLossFraction(f.lossDown, '--loss-down');
  if (f.lossBurst !== undefined) update.lossBurst = parseLinkNumber(f.lossBurst, '--loss-burst', 'lossBurst');
  if (f.mss !== undefined) update.mssBytes = parseLinkNumber(f.mss, '--mss', 'mssBytes');
  const seed = f.seed === undefined ? undefined : parseNonNegativeInt(f.seed, '--seed', 2 ** 53 - 1);
  // What the flags say together (a burst too short for the loss), named by flag.
  try {
    applyLinkUpdate(defaultLinkSettings(), update);
  } catch (err) {
    if (err instanceof ConfigError && err.flag === 'lossBurst') throw new ConfigError('--loss-burst', f.lossBurst, err.accepts);
    throw err;
  }
  return { update, seed };
}
