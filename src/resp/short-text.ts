import { ByteTable } from './byte-table.js';
import { Byte, HotLimit } from './bytes.js';

/**
 * Turns short byte strings from replies (status text, error codes, pub/sub kinds) into strings,
 * interning the first `maxEntries` distinct ones so the steady state (`OK`, `QUEUED`, `message`,
 * `ERR`) allocates nothing. Past the cap new texts are still decoded, just not kept: the table
 * cannot grow with whatever a server or a client's data puts in a reply.
 */
export class ShortTextInterner {
  private readonly table: ByteTable<string>;
  private readonly lowerCase: boolean;
  private readonly maxEntries: number;

  constructor(options: { lowerCase: boolean; maxEntries: number; seed: readonly string[] }) {
    this.lowerCase = options.lowerCase;
    this.table = new ByteTable<string>(options.lowerCase, 2 * options.maxEntries);
    this.maxEntries = options.maxEntries;
    for (const s of options.seed) this.table.setString(s, options.lowerCase ? s.toLowerCase() : s);
  }

  get(buf: Uint8Array, off: number, len: number): string {
    const known = this.table.get(buf, off, len);
    if (known !== undefined) return known;
    let text = Buffer.from(buf.buffer, buf.byteOffset + off, len).toString('utf8');
    if (this.lowerCase) text = text.toLowerCase();
    if (this.table.size < this.maxEntries) this.table.set(buf, off, len, text);
    return text;
  }
}

/** `simple` of `+` replies: case kept. */
export const simpleTexts = new ShortTextInterner({
  lowerCase: false,
  maxEntries: 256,
  seed: ['OK', 'PONG', 'QUEUED', 'string', 'list', 'set', 'zset', 'hash', 'stream', 'none'],
});

/** `errorPrefix` of `-` and `!` replies: case kept. */
export const errorCodes = new ShortTextInterner({
  lowerCase: false,
  maxEntries: 256,
  seed: [
    'ERR', 'WRONGTYPE', 'MOVED', 'ASK', 'NOSCRIPT', 'EXECABORT', 'NOAUTH', 'WRONGPASS', 'NOPERM', 'LOADING',
    'BUSY', 'BUSYKEY', 'BUSYGROUP', 'NOGROUP', 'MASTERDOWN', 'READONLY', 'OOM', 'NOREPLICAS', 'CLUSTERDOWN',
    'TRYAGAIN', 'CROSSSLOT', 'UNBLOCKED', 'NOTBUSY', 'NOPROTO', 'MISCONF', 'UNKILLABLE',
  ],
});

/** `head` of `*` and `>` replies: lower case. */
export const headWords = new ShortTextInterner({
  lowerCase: true,
  maxEntries: 256,
  seed: [
    'message', 'pmessage', 'smessage', 'subscribe', 'unsubscribe', 'psubscribe', 'punsubscribe', 'ssubscribe',
    'sunsubscribe', 'pong', 'invalidate',
  ],
});

/** `errorPrefix` of an error that has no readable code. */
export const UNKNOWN_ERROR_CODE = '?';

/**
 * First word of an error (`ERR`, `WRONGTYPE`, `MOVED`) from its first `len` bytes (at most 33):
 * UNKNOWN_ERROR_CODE unless it is 1-32 printable bytes.
 */
export function errorCodeOf(buf: Uint8Array, off: number, len: number): string {
  let w = 0;
  while (w < len && buf[off + w] !== Byte.Space) {
    const c = buf[off + w]!;
    // Redis error codes are upper case (ERR, WRONGTYPE, NOSCRIPT, CROSSSLOT): anything else is
    // free text, e.g. a script's error_reply() that may carry a value, and is never kept.
    const upper = (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;
    if (!upper) return UNKNOWN_ERROR_CODE;
    w++;
  }
  if (w === 0 || w > HotLimit.ShortText) return UNKNOWN_ERROR_CODE;
  return errorCodes.get(buf, off, w);
}
