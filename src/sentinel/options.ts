import { z } from 'zod';
import { parseEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import { checkOptionKeys } from '../proxy/option-keys.js';
import type { ProxyOptions } from '../proxy/types.js';
import { keyPath, parseWith, refreshPeriodMs } from '../validation/schema.js';
import type { RealAddress } from '../cluster/types.js';

/** What sentinel mode adds to startProxy's options (docs/sentinel.md). */
export const SENTINEL_OPTIONS = {
  sentinels: z
    .array(z.string({ error: 'host:port strings' }), { error: 'a list of sentinel addresses, host:port' })
    .min(1, { error: 'at least one sentinel address, host:port' })
    .describe('The sentinels to ask, "host:port"; the first is served on the listen address.'),
  sentinelMaster: z.string({ error: 'the name the sentinels monitor the primary by' }).min(1).describe('The monitored master name (SENTINEL MONITOR <name> ...).'),
  sentinelUser: z
    .string({ error: 'an ACL user name' })
    .min(1, { error: 'an ACL user name' })
    .describe("ACL user for the proxy's own connections to the sentinels (with sentinelPassword).")
    .optional(),
  sentinelPassword: z
    .string({ error: 'a string' })
    .describe("Password for the proxy's own connections to the sentinels (the CLI reads REDIS_RTT_SENTINEL_PASSWORD).")
    .optional(),
  sentinelRefreshMs: refreshPeriodMs('How often the proxy asks every sentinel for the primary, replicas and sentinels, in ms (at least 10). Default 1000.'),
};

const SCHEMA = z.object(SENTINEL_OPTIONS);
/** The CLI flag of each sentinel option that has one: a ConfigError here names what `redis-rtt proxy`'s user typed. */
export const SENTINEL_FLAGS: Record<string, string> = { sentinels: '--sentinel', sentinelMaster: '--sentinel-master', sentinelUser: '--sentinel-user' };

/** Cluster mode's discovery keys, each with sentinel mode's own: with sentinels they would be dropped without a word. */
export const CLUSTER_DISCOVERY_KEYS = { upstreamUser: 'sentinelUser', upstreamPassword: 'sentinelPassword', topologyRefreshMs: 'sentinelRefreshMs' } as const;

/** The error for one of CLUSTER_DISCOVERY_KEYS given with sentinels, named `name` (the key, or `proxy.json: key`); a password shown redacted. */
export function clusterDiscoveryKeyError(key: keyof typeof CLUSTER_DISCOVERY_KEYS, name: string, value: unknown): ConfigError {
  return new ConfigError(name, key === 'upstreamPassword' ? '(redacted)' : value, `${CLUSTER_DISCOVERY_KEYS[key]} in sentinel mode (${key} is cluster mode's)`);
}

/** startSentinelProxy's options: a proxy's, with the sentinels in place of `upstream`. */
export type SentinelProxyOptions = Omit<ProxyOptions, 'upstream'> & z.input<typeof SCHEMA>;

export const DEFAULT_SENTINEL_REFRESH_MS = 1000;
/** Sentinel's own default port: a --sentinel without one means it. */
const SENTINEL_PORT = 26379;

/** The sentinel options checked (a ConfigError naming the flag), the sentinels parsed. */
export function sentinelSettings(options: SentinelProxyOptions): z.output<typeof SCHEMA> & { addresses: RealAddress[]; refreshMs: number } {
  // Keys first: the schema's own message for options that are no object named no key ('': expected object).
  checkOptionKeys(options, Object.keys(SENTINEL_OPTIONS), 'startSentinelProxy()');
  const data = parseWith(SCHEMA, options, (path) => (path.length >= 1 && SENTINEL_FLAGS[String(path[0])]) || keyPath()(path));
  if (options.cluster === 'on') {
    throw new ConfigError('--cluster', 'on', 'off or auto with --sentinel (sentinel mode fronts a primary and its replicas, not a Redis Cluster)');
  }
  if ('upstream' in options && (options as { upstream?: unknown }).upstream !== undefined) {
    throw new ConfigError('--upstream', (options as { upstream?: unknown }).upstream, 'no --upstream with --sentinel (the sentinels are the upstreams)');
  }
  for (const key of Object.keys(CLUSTER_DISCOVERY_KEYS) as (keyof typeof CLUSTER_DISCOVERY_KEYS)[]) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) throw clusterDiscoveryKeyError(key, key, value);
  }
  // AUTH needs a password: without one the user would be ignored without a word (the proxy would not log in).
  if (data.sentinelUser !== undefined && data.sentinelPassword === undefined) {
    throw new ConfigError('--sentinel-user', data.sentinelUser, 'a password with it (REDIS_RTT_SENTINEL_PASSWORD, or the sentinelPassword option or config key)');
  }
  const addresses = data.sentinels.map((text) => {
    // parseEndpoint's own message offers unix sockets, which a sentinel address cannot be.
    const tcpOnly = new ConfigError('--sentinel', text, `host:port or [ipv6]:port (port ${SENTINEL_PORT} if left out; sentinels are reached over TCP)`);
    let e: ReturnType<typeof parseEndpoint>;
    try {
      e = parseEndpoint(text, '--sentinel', '127.0.0.1', SENTINEL_PORT);
    } catch (err) {
      throw err instanceof ConfigError ? tcpOnly : err;
    }
    if (e.kind !== 'tcp') throw tcpOnly;
    // parseEndpoint takes any text before the last ':' as the host: "a:1,b:2" (a list in one item of the
    // option or config key) would be asked for as host "a:1,b" and refused as "a sentinel that answers".
    if (/[\s,]/.test(e.host)) throw new ConfigError('--sentinel', text, 'one host:port per item (the --sentinel flag splits a comma-separated list; the option and the key do not)');
    return { host: e.host, port: e.port };
  });
  return { ...data, addresses, refreshMs: data.sentinelRefreshMs ?? DEFAULT_SENTINEL_REFRESH_MS };
}
