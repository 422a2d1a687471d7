import { ConfigError } from '../errors.js';

/**
 * Every key of T, at run time: `keysOf<T>()({ a: true, b: true })` compiles only when the object
 * names each key of T and no other, so the list cannot drift from the type.
 */
export function keysOf<T>(): (all: Record<keyof T, true>) => readonly string[] {
  return (all) => Object.keys(all);
}

/**
 * Refuses an option key the entry point does not take, naming it: an options object whose unknown
 * keys are ignored turns a typo (`lnk`, `link` for `links`) into a run without the setting, silently.
 * TypeScript catches it only in an object literal; a spread or JavaScript does not.
 */
export function refuseUnknownKeys(options: object, known: readonly string[], entry: string): void {
  // Not an object (null, a number, a string, an array): null threw a TypeError naming nothing, a
  // number ran with every default, and 'x' was refused as its key `0`. (isJsonObject's test: schema.ts
  // imports this file, so it cannot be imported here.)
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError(entry, options, `an object of ${entry}'s options (docs/api.md)`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new ConfigError(key, (options as Record<string, unknown>)[key], `a key of ${entry}'s options (docs/api.md)`);
  }
}

/** Node's timers take at most 2^31 - 1 ms: a longer delay is set to 1 ms (a TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A start function's option in milliseconds, as a JavaScript caller may get it wrong (a string, 0, NaN,
 * past Node's timer limit): a ConfigError naming it, where a timer would fire at once, or a
 * redis-server would refuse it and the start fail as if Redis had. `whole` where redis-server reads
 * it (it cuts 1.5 to 1).
 */
export function checkMsOption(key: string, ms: unknown, whole = false, min = 1): void {
  const ok = typeof ms === 'number' && (whole ? Number.isInteger(ms) : Number.isFinite(ms)) && ms >= min && ms <= MAX_TIMER_MS;
  if (!ok) throw new ConfigError(key, ms, `${whole ? 'whole milliseconds' : 'milliseconds'}, from ${min} to ${MAX_TIMER_MS}`);
}
