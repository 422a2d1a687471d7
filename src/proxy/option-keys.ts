import { ConfigError } from '../errors.js';
import { PROXY_OPTIONS } from './options-schema.js';
import type { ProxyHooks } from './types.js';

/** The hooks' keys: ProxyHooks at run time (the `satisfies` and the check below keep both lists one). */
const HOOK_KEYS = ['onEvent', 'keyHash', 'onLinkChange', 'log', 'stages', 'scheduler', 'onNodeLinkChange'] as const satisfies readonly (keyof ProxyHooks)[];
const everyHook: Exclude<keyof ProxyHooks, (typeof HOOK_KEYS)[number]> extends never ? true : never = true;
void everyHook;

/**
 * Refuses a key startProxy (or startSentinelProxy, with its own `extraKeys`) does not take: the
 * options' schema strips unknown keys, so a typo (`lnk`, `rtt`) would start a proxy without the
 * setting, silently. TypeScript catches it only in an object literal; a spread or JavaScript does not.
 */
export function checkOptionKeys(options: object, extraKeys: readonly string[] = [], entry = 'startProxy()'): void {
  for (const key of Object.keys(options)) {
    if (key in PROXY_OPTIONS.shape || (HOOK_KEYS as readonly string[]).includes(key) || extraKeys.includes(key)) continue;
    throw new ConfigError(key, (options as Record<string, unknown>)[key], `a key of ${entry}'s options (docs/api.md)`);
  }
}
