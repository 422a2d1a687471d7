import type { Cluster } from 'ioredis';
import { parseRedisEndpoint } from '../../endpoint.js';
import { ConfigError } from '../../errors.js';
import { rawCommands } from '../../redis/raw-command.js';
import { DEFAULT_BENCH_OPTIONS } from '../../workload/options.js';
import { discoverCluster } from '../discover.js';

/** Keys the sequential shapes spread over the slot owners. */
const SEQ_KEYS = 64;

/**
 * The keys a cluster bench writes, every one under `--key-prefix`, so that against a user's
 * cluster it touches only its own and can delete them by exact name at the end.
 */
export class ClusterBenchKeys {
  readonly seq: readonly string[];

  constructor(readonly prefix: string = DEFAULT_BENCH_OPTIONS.keyPrefix) {
    if (prefix === '') throw new ConfigError('--key-prefix', prefix, 'a non-empty prefix, so the run only touches its own keys');
    this.seq = Array.from({ length: SEQ_KEYS }, (_, i) => `${prefix}key:${i}`);
  }

  /** Batch b's i-th key: one hash tag per batch (after the prefix), so a multi-key command stays in one slot. */
  tagged(b: number, i: number): string {
    return `${this.prefix}{${b % SEQ_KEYS}}:${i}`;
  }

  /** Every key a run with `batch` may have written. */
  all(batch: number): string[] {
    const tagged = Array.from({ length: SEQ_KEYS * batch }, (_, j) => this.tagged(Math.floor(j / batch), j % batch));
    return [...this.seq, ...tagged];
  }
}

/**
 * Checks a user's `--redis` seed before anything is written: a TCP address of a cluster node (the
 * proxy's own refusal, `--cluster: ... expected auto or off`, names values bench does not have), and,
 * unless `allow`, a cluster whose primaries hold no keys (as `bench --redis` refuses a database that
 * holds keys).
 */
export async function checkUserCluster(seed: string, prefix: string, allow: boolean): Promise<void> {
  const at = parseRedisEndpoint(seed, '--redis');
  if (at.kind !== 'tcp') throw new ConfigError('--redis', seed, 'host:port of a cluster node (cluster mode needs TCP)');
  const found = await discoverCluster(at.host, at.port, { timeoutMs: 2000 });
  if (!found.enabled) throw new ConfigError('--redis', seed, 'a cluster node (INFO cluster says cluster_enabled:0); leave out --cluster for a single Redis');
  if (allow) return;
  let keys = 0;
  for (const n of found.nodes.filter((x) => x.role === 'master' && !x.unusable)) {
    const [size] = await rawCommands({ kind: 'tcp', host: n.host, port: n.port }, [['DBSIZE']], 2000);
    keys += Number(size?.text ?? 0);
  }
  if (keys === 0) return;
  throw new ConfigError(
    '--redis',
    seed,
    `an empty cluster: its primaries hold ${keys} key${keys === 1 ? '' : 's'}. Pass --allow-nonempty to run anyway ` +
      `(only keys starting with "${prefix}" are written and deleted; nothing is flushed), or leave out --redis ` +
      'to use a private cluster',
  );
}

/** Deletes the run's keys by exact name, one DEL per key (a multi-key DEL must stay in one slot). */
export async function deleteClusterKeys(c: Cluster, keys: readonly string[]): Promise<void> {
  await Promise.all(keys.map((k) => c.del(k)));
}
