import { keysOf, refuseUnknownKeys } from '../validation/known-keys.js';
import { PROXY_OPTIONS } from './options-schema.js';
import type { ProxyHooks } from './types.js';

const HOOK_KEYS = keysOf<ProxyHooks>()({ onEvent: true, keyHash: true, onLinkChange: true, log: true, stages: true, scheduler: true, onNodeLinkChange: true });

/**
 * Refuses a key startProxy (or startSentinelProxy, with its own `extraKeys`) does not take: the
 * options' schema strips unknown keys, so a typo would start a proxy without the setting.
 */
export function checkOptionKeys(options: object, extraKeys: readonly string[] = [], entry = 'startProxy()'): void {
  refuseUnknownKeys(options, [...Object.keys(PROXY_OPTIONS.shape), ...HOOK_KEYS, ...extraKeys], entry);
}
