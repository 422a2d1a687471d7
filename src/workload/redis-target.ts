import type { Redis } from 'ioredis';
import { parseAddress, type Endpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import { startPrivateRedis, type PrivateRedis } from '../redis/index.js';

/**
 * The Redis a bench measures: the one `--redis` names, or, without it, a private one started here
 * (the caller stops it when done).
 */
export async function benchRedis(redis: string | undefined): Promise<{ endpoint: Endpoint; privateRedis?: PrivateRedis }> {
  if (redis !== undefined) return { endpoint: parseAddress(redis, '--redis') };
  const privateRedis = await startPrivateRedis();
  return { endpoint: parseAddress(privateRedis.address), privateRedis };
}

/**
 * Before anything is written or timed, what the run needs of a `--redis`. A Cluster node answers most keys
 * with MOVED, so every configuration failed with it one by one (closed loop, exit 1) or the run died on a
 * stack trace (open loop), where `bench --cluster` is what measures a cluster. A Redis that wants a password
 * (requirepass, an ACL) answered the first command NOAUTH: a stack trace too.
 */
export async function checkUserRedis(admin: Redis, address: string): Promise<void> {
  let info: string;
  try {
    info = await admin.info('cluster');
  } catch (err) {
    const refusal = /^(NOAUTH)\b/.exec((err as Error).message)?.[1];
    if (refusal === undefined) throw err;
    throw new ConfigError(
      '--redis',
      address,
      `a Redis the bench may use without a password: it answered ${refusal} (requirepass or an ACL); the CLI sends ` +
        'none (runBench() and runOpenLoopBench() take `password`)',
    );
  }
  if (!/^cluster_enabled:1\b/m.test(info)) return;
  throw new ConfigError('--redis', address, 'a single Redis (INFO cluster says cluster_enabled:1): add --cluster to bench a Redis Cluster');
}
