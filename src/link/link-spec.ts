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
export function parseLinkSpec(spec: string, flag = 'parseLinkSpec'): LinkSpec {
  // Named by the CLI's flag where one gave the text (`--links`), else by the function: a library
  // caller has no flag, and the default named `--links`, which they had not typed.
  if (typeof spec !== 'string') throw new ConfigError(flag, spec, `a link spec string: direct, a preset (${PRESET_NAMES.join(', ')}) or ${KEYS}`);
  const name = spec.trim();
  if (name === '') throw new ConfigError(flag, spec, `direct, a preset (${PRESET_NAMES.join(', ')}) or ${KEYS}`);
  if (name === 'direct') return { name, direct: true, update: {}, rttUs: 0 };
  const update: LinkUpdate = {};
  // A key given twice, or a preset after the first part, was taken with the last one winning: a
  // typo such as rtt=2ms/rtt=20ms measured a link the user did not mean, without a word.
  const seen = new Set<string>();
  name.split('/').forEach((part, i) => {
    const eq = part.indexOf('=');
    if (eq < 0) {
      const preset = findPreset(part);
      if (!preset) {
        throw new ConfigError(flag, part, `direct, a preset (${PRESET_NAMES.join(', ')}) or ${KEYS}`);
      }
      if (i > 0) throw new ConfigError(flag, name, `a preset only as the first part (${part}/key=value, e.g. cross-az/loss=0.5%)`);
      update.rttUs = preset.rttUs;
      return;
    }
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    const canonical = key === 'bandwidth' ? 'bw' : key;
    if (seen.has(canonical)) throw new ConfigError(`${flag} ${key}=`, name, 'each key at most once in a link');
    seen.add(canonical);
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
        update.lossBurst = parseLinkNumber(value, `${flag} loss-burst=`, 'lossBurst');
        break;
      case 'mss':
        update.mssBytes = parseLinkNumber(value, `${flag} mss=`, 'mssBytes');
        break;
      default:
        throw new ConfigError(flag, part, `keys ${KEYS}`);
    }
  });
  // What the keys say together (a burst too short for the loss), named by the burst's key as typed.
  try {
    applyLinkUpdate(defaultLinkSettings(), update);
  } catch (err) {
    if (err instanceof ConfigError && err.flag === 'lossBurst') throw new ConfigError(`${flag} loss-burst=`, typedBurst(name), err.accepts);
    throw err;
  }
  return { name, direct: false, update, rttUs: rttOfUpdate(update) };
}

/** The text of the last `loss-burst=` in a spec (the one that counts), as typed. */
function typedBurst(spec: string): string | undefined {
  const parts = spec.split('/').filter((p) => p.slice(0, p.indexOf('=')).trim() === 'loss-burst');
  const last = parts[parts.length - 1];
  return last === undefined ? undefined : last.slice(last.indexOf('=') + 1).trim();
}

/**
 * A number a link key takes as typed (`--loss-burst 2`, `loss-burst=2`, `--mss 1000`): digits and an
 * optional decimal part only, checked by the link's own rule for `key`, the error naming `flag` and
 * the text. Number() read an empty value as 0 (independent losses, without a word) and took 0x5a0 or 1e3.
 */
export function parseLinkNumber(text: string, flag: string, key: 'lossBurst' | 'mssBytes'): number {
  const value = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN;
  try {
    applyLinkUpdate(defaultLinkSettings(), { [key]: value });
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(flag, text, err.accepts);
    throw err;
  }
  return value;
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
