import { ConfigError } from '../errors.js';
import { keysOf, refuseUnknownKeys } from '../validation/known-keys.js';
import { PROXY_OPTIONS } from './options-schema.js';
import type { ProxyHooks } from './types.js';

const HOOK_KEYS = keysOf<ProxyHooks>()({ onEvent: true, keyHash: true, onLinkChange: true, log: true, stages: true, scheduler: true, onNodeLinkChange: true });

/** What each hook must be: the schema does not see them, and a wrong one failed later, or never. */
const HOOK_KINDS: Readonly<Record<keyof ProxyHooks, { is: (v: unknown) => boolean; accepts: string }>> = {
  onEvent: { is: (v) => typeof v === 'function', accepts: 'a function' },
  keyHash: { is: (v) => typeof v === 'function', accepts: 'a function' },
  onLinkChange: { is: (v) => typeof v === 'function', accepts: 'a function' },
  log: { is: (v) => typeof v === 'function', accepts: 'a function of one line' },
  stages: { is: (v) => Array.isArray(v), accepts: 'an array of stage factories' },
  scheduler: { is: (v) => typeof v === 'object' && v !== null, accepts: 'a Scheduler' },
  onNodeLinkChange: { is: (v) => typeof v === 'function', accepts: 'a function' },
};

/**
 * Refuses a key startProxy (or startSentinelProxy, with its own `extraKeys`) does not take: the
 * options' schema strips unknown keys, so a typo would start a proxy without the setting.
 */
export function checkOptionKeys(options: object, extraKeys: readonly string[] = [], entry = 'startProxy()'): void {
  refuseUnknownKeys(options, [...Object.keys(PROXY_OPTIONS.shape), ...HOOK_KEYS, ...extraKeys], entry);
  for (const [key, kind] of Object.entries(HOOK_KINDS)) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined && !kind.is(value)) throw new ConfigError(key, value, kind.accepts);
  }
}
