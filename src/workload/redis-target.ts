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
 * A `--redis` that takes the connection and never answers (another service, a stuck Redis) waited out the
 * client's 30 s reply timeout and ended on a stack trace; a Redis answers INFO in milliseconds.
 */
const FIRST_REPLY_TIMEOUT_MS = 5000;
class SilentServer extends Error {}

/**
 * Before anything is written or timed, what the run needs of a `--redis`. A Cluster node answers most keys
 * with MOVED, so every configuration failed with it one by one (closed loop, exit 1) or the run died on a
 * stack trace (open loop), where `bench --cluster` is what measures a cluster. A Redis that wants a password
 * (requirepass, an ACL) answered the first command NOAUTH, and a Sentinel DBSIZE with an error: stack traces too.
 */
export async function checkUserRedis(admin: Redis, address: string, replyTimeoutMs = FIRST_REPLY_TIMEOUT_MS): Promise<void> {
  let info: string;
  let timer: NodeJS.Timeout | undefined;
  const waitMs = Math.min(FIRST_REPLY_TIMEOUT_MS, replyTimeoutMs);
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SilentServer()), waitMs);
  });
  try {
    info = await Promise.race([admin.info('server'), silent]);
  } catch (err) {
    if (err instanceof SilentServer) {
      // Closed, so the clean-up's DEL fails at once instead of waiting out its own 30 s reply timeout.
      admin.disconnect();
      throw new ConfigError('--redis', address, `a Redis: it took the connection but did not answer INFO within ${waitMs / 1000} s`);
    }
    const refusal = /^(NOAUTH)\b/.exec((err as Error).message)?.[1];
    if (refusal === undefined) throw err;
    throw new ConfigError(
      '--redis',
      address,
      `a Redis the bench may use without a password: it answered ${refusal} (requirepass or an ACL); the CLI sends ` +
        'none (runBench() and runOpenLoopBench() take `password`)',
    );
  } finally {
    clearTimeout(timer);
  }
  const mode = /^redis_mode:(\w+)/m.exec(info)?.[1];
  if (mode === 'cluster') throw new ConfigError('--redis', address, 'a single Redis (INFO says redis_mode:cluster): add --cluster to bench a Redis Cluster');
  // A sentinel answers no data command: DBSIZE failed on a ReplyError stack trace.
  if (mode === 'sentinel') {
    throw new ConfigError('--redis', address, "a Redis, not a Sentinel (INFO says redis_mode:sentinel): give the primary's host:port (SENTINEL GET-MASTER-ADDR-BY-NAME)");
  }
}
