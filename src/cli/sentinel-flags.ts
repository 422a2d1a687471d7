import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { parseList } from '../units.js';
import { clusterDiscoveryKeyError, type SentinelProxyOptions } from '../sentinel/options.js';

/** Where the password of the proxy's own sentinel connections comes from, so it does not show in `ps`. */
export const SENTINEL_PASSWORD_ENV = 'REDIS_RTT_SENTINEL_PASSWORD';

export interface SentinelFlagValues {
  sentinel: string[];
  sentinelMaster?: string;
  sentinelUser?: string;
}

/** Sentinel mode's flags of `redis-rtt proxy` (docs/sentinel.md). */
export function addSentinelFlags(cmd: Command): Command {
  return cmd
    .option(
      '--sentinel <host:port,...>',
      'Sentinel mode (no --upstream): the sentinels to ask; one listener per sentinel and per data node, addresses in SENTINEL replies and events rewritten; the first sentinel is on --listen (repeatable)',
      (v: string, all: string[]) => [...all, ...parseList(v, '--sentinel', 'host:port addresses')],
      [] as string[],
    )
    .option('--sentinel-master <name>', 'sentinel mode: the master name the sentinels monitor')
    .option('--sentinel-user <user>', `sentinel mode: ACL user for the proxy's own sentinel connections (password from ${SENTINEL_PASSWORD_ENV})`);
}

/** A config file's sentinel keys that have no flag (docs/cli.md). */
export interface SentinelFileKeys {
  sentinelPassword?: unknown;
  sentinelRefreshMs?: unknown;
  /** Cluster discovery's keys, refused with sentinels (CLUSTER_DISCOVERY_KEYS). */
  upstreamPassword?: unknown;
  topologyRefreshMs?: unknown;
}

/**
 * The sentinel options from the flags (a config file's sentinels, sentinelMaster and sentinelUser
 * were folded into them), or undefined without --sentinel. A ConfigError for a flag or key that
 * needs another: --sentinel-master, --sentinel-user and the file's sentinelPassword or
 * sentinelRefreshMs without --sentinel, --sentinel without --sentinel-master, --sentinel with
 * --upstream, --upstream-user or --cluster on. The password comes from REDIS_RTT_SENTINEL_PASSWORD, else the file's.
 */
export function sentinelFromFlags(
  f: SentinelFlagValues & { upstream?: string; upstreamUser?: string; cluster: string; config?: string; fileKeys?: Readonly<Record<string, string>> },
  file: SentinelFileKeys = {},
): Pick<SentinelProxyOptions, 'sentinels' | 'sentinelMaster' | 'sentinelUser' | 'sentinelPassword'> | undefined {
  if (f.sentinel.length === 0) {
    const inFile = 'to be used with sentinels (--sentinel, or the sentinels key)';
    // A value from the config file is refused under its key (`proxy.json: sentinelMaster`), not a flag the user never typed.
    for (const [attr, flag] of [['sentinelMaster', '--sentinel-master'], ['sentinelUser', '--sentinel-user']] as const) {
      const key = f.fileKeys?.[attr];
      if (f[attr] !== undefined) throw key === undefined ? new ConfigError(flag, f[attr], 'to be used with --sentinel') : new ConfigError(`${f.config ?? 'config'}: ${key}`, f[attr], inFile);
    }
    for (const key of ['sentinelPassword', 'sentinelRefreshMs'] as const) {
      // The password is redacted here as everywhere: the error names the key, not the secret.
      const shown = key === 'sentinelPassword' ? '(redacted)' : file[key];
      if (file[key] !== undefined) throw new ConfigError(`${f.config ?? 'config'}: ${key}`, shown, inFile);
    }
    if (f.upstream === undefined) {
      // With a config file the address may go there too: say so, or the file reads as not consulted.
      const orFile = f.config === undefined ? '' : `, given as the flag or as "upstream" in ${f.config}`;
      throw new ConfigError('--upstream', undefined, `host:port or unix:/path of the Redis to proxy${orFile} (or --sentinel HOST:PORT --sentinel-master NAME)`);
    }
    return undefined;
  }
  const given = f.sentinel.join(',');
  if (f.upstream !== undefined) throw new ConfigError('--upstream', f.upstream, 'no --upstream with --sentinel (the sentinels are the upstreams)');
  if (f.cluster === 'on') throw new ConfigError('--cluster', 'on', 'off or auto with --sentinel (sentinel mode fronts a primary and its replicas, not a Redis Cluster)');
  // Cluster discovery's login: in sentinel mode it would be dropped without a word, the sentinels asked without it.
  if (f.upstreamUser !== undefined) throw new ConfigError('--upstream-user', f.upstreamUser, `--sentinel-user with --sentinel (and ${SENTINEL_PASSWORD_ENV})`);
  // The file's keys that have no flag: --print-config printed them and exited 0, and the start refused them under
  // the bare key, with no word of the file.
  for (const key of ['upstreamPassword', 'topologyRefreshMs'] as const) {
    if (file[key] !== undefined) throw clusterDiscoveryKeyError(key, `${f.config ?? 'config'}: ${key}`, file[key]);
  }
  if (f.sentinelMaster === undefined) throw new ConfigError('--sentinel-master', undefined, `the master name the sentinels at ${given} monitor`);
  const sentinelPassword = process.env[SENTINEL_PASSWORD_ENV] || (file.sentinelPassword as string | undefined);
  return { sentinels: f.sentinel, sentinelMaster: f.sentinelMaster, sentinelUser: f.sentinelUser, sentinelPassword };
}
