import { z } from 'zod';
import { ConfigError } from './errors.js';
import { wholeNumber } from './validation/schema.js';

const DURATION_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ns|us|µs|ms|s)?\s*$/i;
const DURATION_UNIT_US: Record<string, number> = { ns: 0.001, us: 1, 'µs': 1, ms: 1000, s: 1_000_000 };

/**
 * Parses "1.2ms", "200us", "85ms", "2s", "0" into integer microseconds.
 * A bare number is read as `bareUnit` (default ms, the unit users quote RTTs in).
 */
export function parseDurationUs(text: string, flag: string, bareUnit: 'us' | 'ms' = 'ms'): number {
  const m = DURATION_RE.exec(String(text));
  if (!m) throw new ConfigError(flag, text, 'a duration like 200us, 1.2ms or 2s (units ns, us, ms, s)');
  const value = Number(m[1]);
  const unit = (m[2] ?? bareUnit).toLowerCase();
  const us = value * (DURATION_UNIT_US[unit] ?? 1000);
  if (!Number.isFinite(us) || us > 3_600_000_000) {
    throw new ConfigError(flag, text, 'a duration of at most 1 hour');
  }
  return Math.round(us);
}

/**
 * The floor of a duration that must not be 0, said as the one place that says it. Durations are kept
 * in whole microseconds, so "1ns" or "0.4us" round to 0 and are refused: "above 0" read as if 1ns
 * would do.
 */
export const DURATION_FLOOR = 'above 0, at least 1us (durations are whole microseconds: less rounds to 0)';

/** parseDurationUs for a duration that must not be 0: `what` ("a period") names it in the refusal, `example` shows one. */
export function parsePositiveDurationUs(text: string, flag: string, what: string, example: string, bareUnit: 'us' | 'ms' = 'ms'): number {
  const us = parseDurationUs(text, flag, bareUnit);
  if (us === 0) throw new ConfigError(flag, text, `${what} ${DURATION_FLOOR}, like ${example}`);
  return us;
}

/**
 * parseDurationUs for a duration where 0 means `off` ("never"): a duration that is not 0 as written
 * but rounds to 0 us ("1ns") would turn the feature off without a word, so it is refused.
 */
export function parseDurationOrOffUs(text: string, flag: string, off: string): number {
  const us = parseDurationUs(text, flag);
  if (us === 0 && Number(DURATION_RE.exec(String(text))![1]) !== 0) throw new ConfigError(flag, text, `0 (${off}), or a duration ${DURATION_FLOOR}`);
  return us;
}

/**
 * A duration written as text ("10s", "200ms") in a JSON body or file, to integer microseconds. A
 * period, a ramp or a partition is refused at 0 (`aboveZero`): it would mean nothing or divide by it.
 */
export function durationUsSchema(aboveZero: boolean): z.ZodType<number, string> {
  const accepts = `a duration${aboveZero ? ` ${DURATION_FLOOR},` : ''} like 200ms or 10s (units ns, us, ms, s), at most 1 hour`;
  return z.string({ error: accepts }).transform((text, ctx) => {
    let us = -1;
    try {
      us = parseDurationUs(text, 'duration');
    } catch {
      // The message below says what is accepted; parseDurationUs's flag name would be wrong here.
    }
    if (us < 0 || (aboveZero && us === 0)) {
      ctx.addIssue({ code: 'custom', message: accepts });
      return z.NEVER;
    }
    return us;
  });
}

const BANDWIDTH_RE = /^\s*(\d+(?:\.\d+)?)\s*(bit|kbit|mbit|gbit|bps|kbps|mbps|gbps|b|kb|mb|gb)?\s*$/i;
// tc/netem spelling: "mbit" is megabits, "mbps" is megabytes per second.
const BANDWIDTH_UNIT_BPS: Record<string, number> = {
  bit: 1,
  kbit: 1e3,
  mbit: 1e6,
  gbit: 1e9,
  bps: 8,
  kbps: 8e3,
  mbps: 8e6,
  gbps: 8e9,
  b: 8,
  kb: 8e3,
  mb: 8e6,
  gb: 8e9,
};

/** The fastest link a preset or flag may describe: 1 Tbit/s (a faster one is a typo). */
export const MAX_BANDWIDTH_BPS = 1e12;

/**
 * A rate in bits per second, rounded: 0 means unlimited, so a positive rate that rounds to 0
 * would silently lift the limit and is refused.
 */
export const BANDWIDTH_BPS = z
  .number({ error: `bits per second from 1 to ${MAX_BANDWIDTH_BPS} (1tbit), or 0 for unlimited` })
  .min(0)
  .max(MAX_BANDWIDTH_BPS)
  .refine((bps) => bps === 0 || Math.round(bps) > 0)
  .transform((bps) => Math.round(bps));

/** BANDWIDTH_BPS, or a ConfigError naming `flag` (showing `shown`, the text a flag was given). */
export function checkBandwidthBps(bps: unknown, flag: string, shown: unknown = bps): number {
  const r = BANDWIDTH_BPS.safeParse(bps);
  if (!r.success) throw new ConfigError(flag, shown, r.error.issues[0]!.message);
  return r.data;
}

/** Parses "100mbit", "1gbit", "0" (unlimited) into bits per second, tc's spelling. */
export function parseBandwidthBps(text: string, flag: string): number {
  const m = BANDWIDTH_RE.exec(String(text));
  if (!m) {
    throw new ConfigError(flag, text, 'a rate like 100mbit, 1gbit or 0 for unlimited (tc units: bit kbit mbit gbit; bps kbps mbps gbps are bytes/s)');
  }
  const bps = Number(m[1]) * (BANDWIDTH_UNIT_BPS[(m[2] ?? 'bit').toLowerCase()] ?? 1);
  return checkBandwidthBps(bps, flag, text);
}

/** A whole number as digits only (no sign, exponent or fraction), checked by the one integer check. */
export function parseWholeNumber(text: string, flag: string, min: number, max: number = Number.MAX_SAFE_INTEGER): number {
  const s = String(text).trim();
  const r = wholeNumber(min, max).safeParse(/^\d+$/.test(s) ? Number(s) : NaN);
  // One message for every bad value ("x", "0", too big), so the range said is the range accepted.
  if (!r.success) throw new ConfigError(flag, text, r.error.issues[0]!.message);
  return r.data;
}

export function parseNonNegativeInt(text: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  return parseWholeNumber(text, flag, 0, max);
}

export function parsePositiveInt(text: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  return parseWholeNumber(text, flag, 1, max);
}

/**
 * The one reader of a comma-separated flag value: its items, trimmed. An empty item ("1,,2", "1,",
 * an empty value) is refused, not dropped: a stray comma is a typo, and skipping it would run
 * something other than what was typed. `items` says what the list holds, for the message.
 */
export function parseList(text: string, flag: string, items: string): string[] {
  const parts = String(text).split(',').map((p) => p.trim());
  if (parts.some((p) => p === '')) throw new ConfigError(flag, text, `${items}, comma-separated, with no empty item`);
  return parts;
}

/** Comma-separated list of positive integers ("1,8,64,256"). */
export function parseIntList(text: string, flag: string, max = 1_000_000): number[] {
  return parseList(text, flag, 'whole numbers like 1,8,64,256').map((p) => parsePositiveInt(p, flag, max));
}

const BYTES_RE = /^\s*(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*$/i;
// k, m, g are powers of 1000 here as in every unit of this tool (bandwidth, printed sizes); KiB,
// MiB, GiB are powers of 1024 (docs/cli.md "Units").
const BYTES_UNIT: Record<string, number> = { b: 1, k: 1e3, kb: 1e3, kib: 1024, m: 1e6, mb: 1e6, mib: 1 << 20, g: 1e9, gb: 1e9, gib: 1 << 30 };

/** Parses a size like "65536", "64kb" (64000), "4mib" (4194304) into bytes. */
export function parseBytes(text: string, flag: string): number {
  const m = BYTES_RE.exec(String(text));
  if (!m) throw new ConfigError(flag, text, 'a size like 65536, 64kb, 4mib or 1gb (k m g = 1000s, kib mib gib = 1024s)');
  return Math.round(Number(m[1]) * (BYTES_UNIT[(m[2] ?? 'b').toLowerCase()] ?? 1));
}

const RATE_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(k|m)?\s*$/i;

/** Comma-separated rates per second ("2000", "1k,5k,20k", "1.5M"); each above 0. */
export function parseRateList(text: string, flag: string): number[] {
  const accepts = 'commands per second above 0, like 2000 or 1k,5k,20k';
  return parseList(text, flag, accepts).map((p) => {
    const m = RATE_RE.exec(p);
    if (!m) throw new ConfigError(flag, p, accepts);
    const unit = (m[2] ?? '').toLowerCase();
    const rate = Number(m[1]) * (unit === 'k' ? 1e3 : unit === 'm' ? 1e6 : 1);
    if (!(rate > 0) || !Number.isFinite(rate)) throw new ConfigError(flag, p, accepts);
    return rate;
  });
}

const FRACTION_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%)?\s*$/;
/** The text LOSS_FRACTION reads, for the JSON Schema (the number's range is checked after). */
export const LOSS_TEXT_PATTERN = FRACTION_RE.source;
const LOSS_ACCEPTS = 'a loss probability in [0, 1), written 0.01 or 1%';

/**
 * A segment-loss probability in [0, 1): 1 would mean nothing ever arrives, which TCP answers with a
 * reset, not a delay. Text is read as a fraction (`0.01`) or a percentage (`1%`), so PUT /link and a
 * flag take the same spellings.
 */
export const LOSS_FRACTION = z.preprocess(
  (v) => (typeof v === 'string' ? fractionOf(v) : v),
  z.number({ error: LOSS_ACCEPTS }).min(0, { error: LOSS_ACCEPTS }).lt(1, { error: LOSS_ACCEPTS }),
);

function fractionOf(text: string): number {
  const m = FRACTION_RE.exec(text);
  if (!m) return NaN;
  return m[2] ? Number(m[1]) / 100 : Number(m[1]);
}

/** Parses `1%` or `0.01` into a loss probability in [0, 1), or a ConfigError naming `flag`. */
export function parseLossFraction(text: string, flag: string): number {
  const r = LOSS_FRACTION.safeParse(String(text));
  if (!r.success) throw new ConfigError(flag, text, LOSS_ACCEPTS);
  return r.data;
}
