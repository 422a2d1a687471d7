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
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new ConfigError(key, (options as Record<string, unknown>)[key], `a key of ${entry}'s options (docs/api.md)`);
  }
}
