import { errorCodeOf, simpleTexts } from './short-text.js';
import type { FrameSink, ReplyFrame } from './types.js';

/**
 * Frames every top-level `+ - : $` reply that lies whole in `buf` from `p` (the bulk of a reply
 * stream: OK, QUEUED, integers, GET results, `$-1`), allocating nothing for known texts; returns
 * where the first other value starts (an aggregate, RESP3, one the chunk cuts), which the state
 * machine then takes. `base` is the absolute offset of buf[0].
 */
export function frameWholeReplies(
  frame: ReplyFrame,
  sink: FrameSink<ReplyFrame>,
  buf: Buffer,
  p: number,
  base: number,
): number {
  // Byte values as function-local consts, which V8 folds into the code. (Imported or module-level
  // ones are reloaded on every use, see resp/bytes.ts; under vitest each is even a getter call.)
  const CR = 0x0d, LF = 0x0a, D0 = 0x30, D1 = 0x31, D9 = 0x39, MINUS = 0x2d, PLUS_SIGN = 0x2b;
  const PLUS = 0x2b, ERROR = 0x2d, COLON = 0x3a, DOLLAR = 0x24; // type bytes, as in RespType
  const SHORT_TEXT = 32; // SHORT_TEXT_MAX_BYTES
  const end = buf.length;
  while (p < end) {
    const t = buf[p]!;
    let q = p + 1;
    let c = 0;
    if (t === PLUS || t === ERROR) {
      while (q < end && buf[q] !== CR) q++;
      if (q + 1 >= end || buf[q + 1] !== LF) return p;
      const len = q - p - 1;
      frame.simple = t === PLUS && len <= SHORT_TEXT ? simpleTexts.get(buf, p + 1, len) : undefined;
      frame.errorPrefix = t === ERROR ? errorCodeOf(buf, p + 1, Math.min(len, SHORT_TEXT + 1)) : undefined;
    } else if (t === DOLLAR) {
      let len = 0;
      const digitsAt = q;
      while (q < end && (c = buf[q]!) >= D0 && c <= D9) {
        len = len * 10 + (c - D0);
        q++;
      }
      if (q === digitsAt) {
        // `$-1`, the RESP2 null, is common (a GET miss): take it here too.
        if (q + 2 >= end || c !== MINUS || buf[q + 1] !== D1 || buf[q + 2] !== CR) return p;
        q += 2;
      } else {
        const e = q + 2 + len;
        if (e + 1 >= end || buf[q] !== CR || buf[q + 1] !== LF || buf[e] !== CR) return p;
        q = e;
      }
      if (buf[q + 1] !== LF) return p;
      frame.simple = undefined;
      frame.errorPrefix = undefined;
    } else if (t === COLON) {
      if (q < end && (buf[q] === MINUS || buf[q] === PLUS_SIGN)) q++;
      const digitsAt = q;
      while (q < end && (c = buf[q]!) >= D0 && c <= D9) q++;
      if (q === digitsAt || q + 1 >= end || c !== CR || buf[q + 1] !== LF) return p;
      frame.simple = undefined;
      frame.errorPrefix = undefined;
    } else {
      return p;
    }
    frame.start = base + p;
    frame.end = base + q + 2;
    frame.type = t;
    frame.elements = undefined;
    frame.head = undefined;
    frame.lastInt = undefined;
    sink.frame(frame);
    p = q + 2;
  }
  return p;
}
