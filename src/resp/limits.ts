import type { FramerOptions } from './types.js';

/**
 * Redis's own request limits (networking.c, 7.0), so the request framer gives up exactly where
 * redis-server would close the connection with a protocol error, and nowhere else.
 */

/**
 * PROTO_INLINE_MAX_SIZE: an inline line (or a `*`/`$` header) longer than this is an error. Redis
 * checks it only when a read (16 KiB at most) ends before the line's LF, so a line of up to 80 KiB
 * that arrives at once may still run (7.0.15 ran one of 81,905 bytes written whole, and refused one
 * of 70,005 written in 1,000-byte pieces): past 64 KiB the framer desyncs, which may be too early.
 */
export const INLINE_MAX_BYTES = 64 * 1024;
/** A multibulk count above INT_MAX is "invalid multibulk length". */
export const MULTIBULK_MAX_ARGS = 2 ** 31 - 1;
/**
 * The longest request argument the framer counts. Redis refuses one over `proto-max-bulk-len`
 * ("invalid bulk length"), 512 MiB by default but settable up to LLONG_MAX, and the tap cannot see
 * the setting: it counts any length a double holds exactly, so against a Redis set higher the counts
 * stay exact (the framer only counts an argument's bytes, it never holds them). Against a default
 * Redis an argument over 512 MiB is then refused as one over a lower setting is (docs/counters.md).
 */
export const REQUEST_MAX_BULK_BYTES = Number.MAX_SAFE_INTEGER;
/** Replies have no server-side cap we can rely on: lengths only have to stay exact in a double. */
export const REPLY_MAX_LENGTH = Number.MAX_SAFE_INTEGER;

/** Longest command name (and subcommand) we report; longer is garbage, not a name. */
export const NAME_MAX_BYTES = 32;
/** `simple`, reply `head` and `errorPrefix` are kept only up to this many bytes (types.ts). */
export const SHORT_TEXT_MAX_BYTES = 32;
// (bytes.ts repeats the limits hot loops use as const enum literals: keep them in step.)

export const DEFAULT_FRAMER_OPTIONS: Required<FramerOptions> = {
  headArgs: 3,
  headBytes: 64,
  argSizes: false,
};
