/**
 * What the opportunity finder needs to know about commands: which ones write, which ones have a
 * multi-key (or multi-member) form that does N of them in one command, and which ones can never be
 * batched (connection state, blocking, pub/sub). Data only.
 */
import { statsKey } from '../tap/blocking.js';

/** Writes whose reply a client rarely needs before its next command. */
export const WRITE_COMMANDS: ReadonlySet<string> = new Set([
  'SET', 'SETEX', 'PSETEX', 'SETNX', 'MSET', 'MSETNX', 'APPEND', 'SETRANGE', 'SETBIT', 'GETSET', 'GETDEL',
  'INCR', 'INCRBY', 'INCRBYFLOAT', 'DECR', 'DECRBY',
  'HSET', 'HMSET', 'HSETNX', 'HDEL', 'HINCRBY', 'HINCRBYFLOAT',
  'LPUSH', 'RPUSH', 'LPUSHX', 'RPUSHX', 'LSET', 'LTRIM', 'LREM', 'LINSERT',
  'SADD', 'SREM', 'SMOVE',
  'ZADD', 'ZREM', 'ZINCRBY', 'ZREMRANGEBYSCORE', 'ZREMRANGEBYRANK', 'ZREMRANGEBYLEX',
  'DEL', 'UNLINK', 'EXPIRE', 'PEXPIRE', 'EXPIREAT', 'PEXPIREAT', 'PERSIST', 'COPY',
  'XADD', 'XACK', 'XDEL', 'XTRIM', 'PFADD', 'GEOADD', 'PUBLISH', 'SPUBLISH',
]);

/** Never suggested for batching: they change connection state, block, or wait on purpose. */
export const NOT_BATCHABLE: ReadonlySet<string> = new Set([
  'AUTH', 'HELLO', 'SELECT', 'QUIT', 'RESET', 'CLIENT', 'READONLY', 'READWRITE', 'ASKING',
  'MULTI', 'EXEC', 'DISCARD', 'WATCH', 'UNWATCH',
  'SUBSCRIBE', 'UNSUBSCRIBE', 'PSUBSCRIBE', 'PUNSUBSCRIBE', 'SSUBSCRIBE', 'SUNSUBSCRIBE', 'MONITOR',
  'BLPOP', 'BRPOP', 'BLMOVE', 'BRPOPLPUSH', 'BLMPOP', 'BZPOPMIN', 'BZPOPMAX', 'BZMPOP', 'WAIT', 'WAITAOF',
  'SHUTDOWN', 'DEBUG', 'SYNC', 'PSYNC', 'REPLICAOF', 'SLAVEOF', 'FAILOVER',
]);

/**
 * Cursor loops: each call carries the cursor the previous reply returned, so call N+1 cannot be sent
 * before reply N arrives. No pipeline or multi-key form can save these round trips.
 */
export const CURSOR_COMMANDS: ReadonlySet<string> = new Set(['SCAN', 'HSCAN', 'SSCAN', 'ZSCAN']);

export interface MultiKeyForm {
  /** The command that does many in one round trip. */
  command: string;
  /** True when it only combines operations on one key (HMGET, SMISMEMBER...). */
  sameKeyOnly: boolean;
  /** Largest argc of a single call that still fits the multi form (SET k v, not SET k v EX 10). */
  maxArgc?: number;
}

export const MULTI_KEY_FORMS: Readonly<Record<string, MultiKeyForm>> = {
  GET: { command: 'MGET', sameKeyOnly: false },
  SET: { command: 'MSET', sameKeyOnly: false, maxArgc: 3 },
  SETNX: { command: 'MSETNX', sameKeyOnly: false },
  DEL: { command: 'DEL', sameKeyOnly: false },
  UNLINK: { command: 'UNLINK', sameKeyOnly: false },
  EXISTS: { command: 'EXISTS', sameKeyOnly: false },
  TOUCH: { command: 'TOUCH', sameKeyOnly: false },
  HGET: { command: 'HMGET', sameKeyOnly: true },
  HSET: { command: 'HSET', sameKeyOnly: true },
  HDEL: { command: 'HDEL', sameKeyOnly: true },
  SADD: { command: 'SADD', sameKeyOnly: true },
  SREM: { command: 'SREM', sameKeyOnly: true },
  SISMEMBER: { command: 'SMISMEMBER', sameKeyOnly: true },
  ZADD: { command: 'ZADD', sameKeyOnly: true },
  ZREM: { command: 'ZREM', sameKeyOnly: true },
  ZSCORE: { command: 'ZMSCORE', sameKeyOnly: true },
  LPUSH: { command: 'LPUSH', sameKeyOnly: true },
  RPUSH: { command: 'RPUSH', sameKeyOnly: true },
  PFADD: { command: 'PFADD', sameKeyOnly: true },
  INCR: { command: 'INCRBY', sameKeyOnly: true },
  DECR: { command: 'DECRBY', sameKeyOnly: true },
};

/** The base command of "CLIENT|SETINFO" or "CLIENT SETINFO". */
export function baseCommand(name: string): string {
  return name.split(/[| ]/)[0] ?? name;
}

export function isWrite(name: string): boolean {
  return WRITE_COMMANDS.has(baseCommand(name));
}

export function isCursor(name: string): boolean {
  return CURSOR_COMMANDS.has(baseCommand(name));
}

export function isBatchable(name: string): boolean {
  const base = baseCommand(name);
  // A blocking command queued inside MULTI ("BLPOP QUEUED", the tap's key) does not block: its +QUEUED
  // is a round trip like a queued SET's. Only the command run outside MULTI ("BLPOP") waits on purpose.
  if (name !== base && name === statsKey(base, false, true)) return true;
  return !NOT_BATCHABLE.has(base);
}
