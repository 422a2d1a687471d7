/**
 * startProxy and startSentinelProxy as the package exports them: a ConfigError names the option key
 * the caller wrote (`highWaterBytes`, `linkSchedule.steps[0].at`, `upstreamTls.ca`), as docs/api.md
 * says. The checks inside name the CLI flag (`--high-water`), which is what `redis-rtt proxy`'s user
 * typed: the CLI calls the inner functions, so its messages stay as they are.
 */
import { startProxy as startProxyNamingFlags } from '../cluster/start-proxy.js';
import { ConfigError } from '../errors.js';
import { optionFlag, PROXY_OPTIONS } from '../proxy/options-schema.js';
import type { ProxyOptions, RedisRttProxy } from '../proxy/types.js';
import { SENTINEL_FLAGS, type SentinelProxyOptions } from '../sentinel/options.js';
import type { RedisRttSentinelProxy } from '../sentinel/sentinel-proxy.js';
import { startSentinelProxy as startSentinelProxyNamingFlags } from '../sentinel/start-sentinel.js';
import { LISTEN_TLS_FLAGS, UPSTREAM_TLS_FLAGS } from '../tls/options.js';

/** Each flag a start-up check names, and the option key it stands for. */
const KEY_OF_FLAG = new Map<string, string>([
  ...Object.keys(PROXY_OPTIONS.shape).map((key) => [optionFlag([key]), key] as const),
  ...Object.entries(SENTINEL_FLAGS).map(([key, flag]) => [flag, key] as const),
  ...Object.entries(UPSTREAM_TLS_FLAGS).map(([key, flag]) => [flag, `upstreamTls.${key}`] as const),
  ...Object.entries(LISTEN_TLS_FLAGS).map(([key, flag]) => [flag, `listenTls.${key}`] as const),
  // Named by their parsers' default flag argument rather than a table: the same keys, read as flags.
  ['--upstream-tls', 'upstreamTls'],
  ['--listen-tls', 'listenTls'],
  ['--tls-max-version', 'listenTls.maxVersion'],
  ['--allow-host', 'allowHosts'],
  ['--node-link', 'nodeLinks'],
  ['--same-zone-link', 'sameZoneLink'],
  ['--cross-zone-link', 'crossZoneLink'],
]);

/** `--link-schedule steps[0].at` -> `linkSchedule.steps[0].at`; undefined when no flag leads it. */
function keyOf(flag: string): string | undefined {
  const space = flag.indexOf(' ');
  const head = space < 0 ? flag : flag.slice(0, space);
  const key = head.startsWith('--') ? KEY_OF_FLAG.get(head) : undefined;
  if (key === undefined || space < 0) return key;
  const rest = flag.slice(space + 1);
  return rest.startsWith('[') ? `${key}${rest}` : `${key}.${rest}`;
}

async function namingKeys<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    // Only a plain ConfigError is renamed: a subclass (ToxicExistsError) keeps its class and its key.
    const key = err instanceof ConfigError && err.constructor === ConfigError ? keyOf(err.flag) : undefined;
    if (key === undefined) throw err;
    throw new ConfigError(key, (err as ConfigError).value, (err as ConfigError).accepts);
  }
}

/** Starts a proxy (cluster mode when `cluster` asks for it); a bad option is a ConfigError naming its key. */
export function startProxy(options: ProxyOptions): Promise<RedisRttProxy> {
  return namingKeys(() => startProxyNamingFlags(options));
}

/** Starts a Sentinel-mode proxy; a bad option is a ConfigError naming its key. */
export function startSentinelProxy(options: SentinelProxyOptions): Promise<RedisRttSentinelProxy> {
  return namingKeys(() => startSentinelProxyNamingFlags(options));
}
