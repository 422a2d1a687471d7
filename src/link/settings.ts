import { ConfigError } from '../errors.js';
import { checkBandwidthBps } from '../units.js';
import { findPreset, PRESET_NAMES } from './presets.js';
import { splitRtt } from './link-spec.js';
import { JITTER_DISTS, NO_DELAY, type LinkSettings, type LinkUpdate } from './types.js';

const MAX_DELAY_US = 3_600_000_000;

/**
 * Applies a partial update (optionally naming a preset) to settings, validating every field.
 * Order: preset, then rttUs, then explicit upUs/downUs, so `--rtt 1ms --up 0.3ms` means up 0.3, down 0.5.
 */
export function applyLinkUpdate(base: LinkSettings, update: LinkUpdate & { preset?: string }): LinkSettings {
  if (typeof update !== 'object' || update === null) throw new ConfigError('link', update, 'an object of link settings');
  // Everything is computed into a copy; the caller stores it only if nothing threw, so a rejected
  // update changes nothing.
  const next: LinkSettings = { ...base };
  if (update.preset !== undefined) {
    const p = findPreset(update.preset);
    if (!p) throw new ConfigError('preset', update.preset, PRESET_NAMES.join(' | '));
    Object.assign(next, splitRtt(p.rttUs));
  }
  if (update.rttUs !== undefined) Object.assign(next, splitRtt(checkUs('rttUs', update.rttUs)));
  if (update.upUs !== undefined) next.upUs = checkUs('upUs', update.upUs);
  if (update.downUs !== undefined) next.downUs = checkUs('downUs', update.downUs);
  if (update.jitterUs !== undefined) next.jitterUs = checkUs('jitterUs', update.jitterUs);
  if (update.jitterDist !== undefined) {
    if (!(JITTER_DISTS as readonly string[]).includes(update.jitterDist)) {
      throw new ConfigError('jitterDist', update.jitterDist, JITTER_DISTS.join(' | '));
    }
    next.jitterDist = update.jitterDist;
  }
  if (update.bandwidthBps !== undefined) next.bandwidthBps = checkBandwidthBps(update.bandwidthBps, 'bandwidthBps');
  return next;
}

export function defaultLinkSettings(): LinkSettings {
  return { ...NO_DELAY };
}

function checkUs(key: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_DELAY_US) {
    throw new ConfigError(key, v, 'microseconds from 0 to 3600000000');
  }
  return Math.round(v);
}
