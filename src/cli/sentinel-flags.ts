import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { parseList } from '../units.js';
import type { SentinelProxyOptions } from '../sentinel/options.js';

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

/**
 * The sentinel options from the flags, or undefined without --sentinel. A ConfigError for a flag
 * that needs another: --sentinel-master and --sentinel-user without --sentinel, --sentinel without
 * --sentinel-master, --sentinel with --upstream or --cluster on.
 */
export function sentinelFromFlags(
  f: SentinelFlagValues & { upstream?: string; cluster: string },
): Pick<SentinelProxyOptions, 'sentinels' | 'sentinelMaster' | 'sentinelUser' | 'sentinelPassword'> | undefined {
  if (f.sentinel.length === 0) {
    if (f.sentinelMaster !== undefined) throw new ConfigError('--sentinel-master', f.sentinelMaster, 'to be used with --sentinel');
    if (f.sentinelUser !== undefined) throw new ConfigError('--sentinel-user', f.sentinelUser, 'to be used with --sentinel');
    if (f.upstream === undefined) throw new ConfigError('--upstream', undefined, 'host:port or unix:/path of the Redis to proxy (or --sentinel HOST:PORT --sentinel-master NAME)');
    return undefined;
  }
  const given = f.sentinel.join(',');
  if (f.upstream !== undefined) throw new ConfigError('--upstream', f.upstream, 'no --upstream with --sentinel (the sentinels are the upstreams)');
  if (f.cluster === 'on') throw new ConfigError('--cluster', 'on', 'off or auto with --sentinel (sentinel mode fronts a primary and its replicas, not a Redis Cluster)');
  if (f.sentinelMaster === undefined) throw new ConfigError('--sentinel-master', undefined, `the master name the sentinels at ${given} monitor`);
  const sentinelPassword = process.env[SENTINEL_PASSWORD_ENV] || undefined;
  return { sentinels: f.sentinel, sentinelMaster: f.sentinelMaster, sentinelUser: f.sentinelUser, sentinelPassword };
}
