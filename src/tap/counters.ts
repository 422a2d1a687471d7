/** Building, summing and bucketing the per-connection Counters (plain JSON, see types.ts). */
import type { Counters } from './counter-types.js';

export function newCounters(): Counters {
  return {
    commands: 0,
    replies: 0,
    pushes: 0,
    errorReplies: 0,
    errorsByPrefix: {},
    roundTrips: 0,
    flights: 0,
    maxDepth: 0,
    depthHistogram: {},
    blockingCommands: 0,
    bytesUp: 0,
    bytesDown: 0,
    chunksUp: 0,
    chunksDown: 0,
    unparsedBytes: 0,
  };
}

/**
 * Adds `from` into `into` and returns `into`. Sums every count; `maxDepth` takes the larger
 * (the deepest any one connection went, not a sum of depths).
 */
export function addCounters(into: Counters, from: Readonly<Counters>): Counters {
  into.commands += from.commands;
  into.replies += from.replies;
  into.pushes += from.pushes;
  into.errorReplies += from.errorReplies;
  addRecord(into.errorsByPrefix, from.errorsByPrefix);
  into.roundTrips += from.roundTrips;
  into.flights += from.flights;
  into.maxDepth = Math.max(into.maxDepth, from.maxDepth);
  addRecord(into.depthHistogram, from.depthHistogram);
  into.blockingCommands += from.blockingCommands;
  into.bytesUp += from.bytesUp;
  into.bytesDown += from.bytesDown;
  into.chunksUp += from.chunksUp;
  into.chunksDown += from.chunksDown;
  into.unparsedBytes += from.unparsedBytes;
  return into;
}

/** A deep copy (the maps included), safe to hand out in a snapshot. */
export function copyCounters(from: Readonly<Counters>): Counters {
  return addCounters(newCounters(), from);
}

function addRecord(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const key of Object.keys(from)) into[key] = (into[key] ?? 0) + (from[key] ?? 0);
}

// Bucket labels are computed once: depths past 2^31 are not a thing a connection can reach.
const BUCKET_LABELS: string[] = ['1'];
for (let k = 1; k <= 31; k++) BUCKET_LABELS.push(`${2 ** k}-${2 ** (k + 1) - 1}`);

/**
 * The depthHistogram key for a round trip of `depth` requests: "1", "2-3", "4-7", "8-15", ...
 * (powers of two). Depth 0 (a round trip can only be empty if a reset cut it) reads as "1".
 */
export function depthBucket(depth: number): string {
  if (depth <= 1) return '1';
  const k = 31 - Math.clz32(Math.min(depth, 0xffffffff) >>> 0);
  return BUCKET_LABELS[Math.min(k, 31)] as string;
}

/** Orders depthHistogram keys by their lower bound ("1", "2-3", "4-7", ...). */
export function compareDepthBuckets(a: string, b: string): number {
  return parseInt(a, 10) - parseInt(b, 10);
}

/** Adds one round trip of `depth` requests into `histogram`. */
export function recordDepth(histogram: Record<string, number>, depth: number): void {
  const key = depthBucket(depth);
  histogram[key] = (histogram[key] ?? 0) + 1;
}

/**
 * The error codes Redis and its cluster, ACL and scripting layers send as the first word of an
 * error reply (server.c's shared objects and addReplyError callers, 7.x). Any other first word
 * (a script's `redis.error_reply('...')` or a module's message can say anything, a secret
 * included) counts as OTHER_ERROR_PREFIX, so no data word becomes a stats key, a /metrics label
 * or a trace field.
 */
export const REDIS_ERROR_PREFIXES: ReadonlySet<string> = new Set([
  'ERR', 'WRONGTYPE', 'MOVED', 'ASK', 'TRYAGAIN', 'CROSSSLOT', 'CLUSTERDOWN', 'LOADING', 'BUSY',
  'BUSYKEY', 'BUSYGROUP', 'NOGROUP', 'NOSCRIPT', 'NOAUTH', 'NOPERM', 'WRONGPASS', 'OOM', 'READONLY',
  'MASTERDOWN', 'MISCONF', 'EXECABORT', 'NOREPLICAS', 'NOTBUSY', 'UNKILLABLE', 'NOGOODSLAVE',
  'NOTREADY', 'UNBLOCKED', 'NOPROTO', 'NOQUORUM', 'INVALIDOBJ', 'NOTSUPPORTED', 'DENIED',
]);
export const OTHER_ERROR_PREFIX = 'OTHER';
/** An error reply with no readable first word. */
export const EMPTY_ERROR_PREFIX = 'UNKNOWN';

/**
 * Counts one error reply whose first word is `prefix`: a Redis error code as is, empty as
 * UNKNOWN, anything else as OTHER. Returns the word counted.
 */
export function countErrorReply(c: Counters, prefix: string | undefined): string {
  const key = !prefix || prefix === '?' ? EMPTY_ERROR_PREFIX : REDIS_ERROR_PREFIXES.has(prefix) ? prefix : OTHER_ERROR_PREFIX;
  const byPrefix = c.errorsByPrefix;
  c.errorReplies++;
  byPrefix[key] = (byPrefix[key] ?? 0) + 1;
  return key;
}

/** Takes back one error reply counted under `key` (countErrorReply's word), and from its command's entry. */
export function uncountErrorReply(c: Counters, key: string, entry: { errors: number } | null): void {
  const byPrefix = c.errorsByPrefix;
  if (c.errorReplies > 0) c.errorReplies--;
  const left = (byPrefix[key] ?? 0) - 1;
  if (left > 0) byPrefix[key] = left;
  else delete byPrefix[key];
  if (entry !== null && entry.errors > 0) entry.errors--;
}
