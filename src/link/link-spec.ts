import { ConfigError } from '../errors.js';
import { parseBandwidthBps, parseDurationUs, parseLossFraction } from '../units.js';
import { applyLinkUpdate, defaultLinkSettings, splitRtt } from './settings.js';
import { findPreset, PRESET_NAMES } from './presets.js';
import { JITTER_DISTS, type JitterDist, type LinkUpdate } from './types.js';

/** A link named on the command line: `direct`, a preset, or `key=value/key=value`. */
export interface LinkSpec {
  /** The name exactly as given. */
  name: string;
  /** True for `direct`: no proxy at all. */
  direct: boolean;
  /** Settings for the proxy (preset first, then explicit keys). */
  update: LinkUpdate;
  /** Round trip this link adds, microseconds (what the model multiplies by). */
  rttUs: number;
}

const KEYS = 'rtt, up, down, jitter, dist, bw, loss, loss-up, loss-down, loss-burst, mss (e.g. rtt=2ms/jitter=0.2ms/dist=normal/bw=100mbit, cross-az/loss=0.5%)';

/**
 * Parses one link spec. Grammar: `direct` | `<preset>` | `<preset>/<k=v>...` | `<k=v>/<k=v>...`
 * with keys rtt, up, down, jitter, dist (uniform|normal|pareto|paretonormal), bw, loss, loss-up,
 * loss-down (1% or 0.01), loss-burst (segments), mss (bytes).
 */
export function parseLinkSpec(spec: string, flag = '--links'): LinkSpec {
  const name = spec.trim();
  if (name === '') throw new ConfigError(flag, spec, `direct, a preset (${PRESET_NAMES.join(', ')}) or ${KEYS}`);
  if (name === 'direct') return { name, direct: true, update: {}, rttUs: 0 };
  const update: LinkUpdate = {};
  for (const part of name.split('/')) {
    const eq = part.indexOf('=');
    if (eq < 0) {
      const preset = findPreset(part);
      if (!preset) {
        throw new ConfigError(flag, part, `direct, a preset (${PRESET_NAMES.join(', ')}) or ${KEYS}`);
      }
      update.rttUs = preset.rttUs;
      continue;
    }
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    switch (key) {
      case 'rtt':
        update.rttUs = parseDurationUs(value, `${flag} rtt=`);
        delete update.upUs;
        delete update.downUs;
        break;
      case 'up':
        update.upUs = parseDurationUs(value, `${flag} up=`);
        break;
      case 'down':
        update.downUs = parseDurationUs(value, `${flag} down=`);
        break;
      case 'jitter':
        update.jitterUs = parseDurationUs(value, `${flag} jitter=`);
        break;
      case 'dist':
        update.jitterDist = parseJitterDist(value, `${flag} dist=`);
        break;
      case 'bw':
      case 'bandwidth':
        update.bandwidthBps = parseBandwidthBps(value, `${flag} bw=`);
        break;
      case 'loss':
        update.loss = parseLossFraction(value, `${flag} loss=`);
        break;
      case 'loss-up':
        update.lossUp = parseLossFraction(value, `${flag} loss-up=`);
        break;
      case 'loss-down':
        update.lossDown = parseLossFraction(value, `${flag} loss-down=`);
        break;
      case 'loss-burst':
        update.lossBurst = Number(value);
        break;
      case 'mss':
        update.mssBytes = Number(value);
        break;
      default:
        throw new ConfigError(flag, part, `keys ${KEYS}`);
    }
  }
  // The link's own schema checks what the keys above only read (loss-burst, mss), naming the key.
  try {
    applyLinkUpdate(defaultLinkSettings(), update);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${flag} ${err.flag}`, spec, err.accepts);
    throw err;
  }
  return { name, direct: false, update, rttUs: rttOfUpdate(update) };
}

export function parseJitterDist(value: string, flag: string): JitterDist {
  if ((JITTER_DISTS as readonly string[]).includes(value)) return value as JitterDist;
  throw new ConfigError(flag, value, JITTER_DISTS.join(' | '));
}

/** The RTT an update describes when applied to a link with no delay. */
export function rttOfUpdate(u: LinkUpdate): number {
  const half = splitRtt(u.rttUs ?? 0);
  return (u.upUs ?? half.upUs) + (u.downUs ?? half.downUs);
}
