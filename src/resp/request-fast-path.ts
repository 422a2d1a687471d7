import type { HeadSlots, RequestFrameImpl } from './request-frame.js';
import type { FrameSink, RequestFrame } from './types.js';

/** What the fast path writes to: fixed for the life of a RequestFramer. */
export interface WholeRequestContext {
  readonly slots: HeadSlots;
  readonly sizes: number[] | undefined;
  readonly maxBulk: number;
  readonly frame: RequestFrameImpl;
  readonly sink: FrameSink<RequestFrame>;
}

/**
 * Frames every `*N $L ...` request that lies whole in `buf` from `p`, in one pass over its header
 * bytes, allocating nothing; returns where the first other request starts (one the chunk cuts,
 * an inline one, `*0`, or anything invalid), which the state machine then takes. `base` is the
 * absolute offset of buf[0]. Bounds are checked against `buf.length` itself, which lets V8 drop
 * its own check on each read. This is the loop the framer's speed comes from: keep it plain.
 */
export function frameWholeRequests(ctx: WholeRequestContext, buf: Buffer, p: number, base: number): number {
  // Byte values as function-local consts, which V8 folds into the code. (Imported or module-level
  // ones are reloaded on every use, see resp/bytes.ts; under vitest each is even a getter call.)
  const CR = 0x0d, LF = 0x0a, D0 = 0x30, D1 = 0x31, D9 = 0x39;
  const STAR = 0x2a, DOLLAR = 0x24; // type bytes, as in RespType
  const MAX_ARGS = 2147483647; // MULTIBULK_MAX_ARGS
  const end = buf.length;
  const slotOff = ctx.slots.off;
  const slotFull = ctx.slots.full;
  const slotCount = ctx.slots.count;
  const { sizes, maxBulk, frame, sink } = ctx;
  while (p < end) {
    if (buf[p] !== STAR) return p;
    let q = p + 1;
    if (q >= end) return p;
    let c = buf[q]!;
    if (c < D1 || c > D9) return p;
    let n = c - D0;
    q++;
    while (q < end && (c = buf[q]!) >= D0 && c <= D9) {
      n = n * 10 + (c - D0);
      q++;
    }
    if (q + 1 >= end || buf[q] !== CR || buf[q + 1] !== LF || n > MAX_ARGS) return p;
    q += 2;
    if (sizes !== undefined) sizes.length = 0;
    for (let i = 0; i < n; i++) {
      if (q + 1 >= end || buf[q] !== DOLLAR) return p;
      c = buf[++q]!;
      let len: number;
      if (c >= D1 && c <= D9) {
        len = c - D0;
        q++;
        while (q < end && (c = buf[q]!) >= D0 && c <= D9) {
          len = len * 10 + (c - D0);
          q++;
        }
      } else if (c === D0) {
        len = 0;
        q++;
      } else {
        return p;
      }
      if (q + 1 >= end || buf[q] !== CR || buf[q + 1] !== LF) return p;
      const data = q + 2;
      const dataEnd = data + len;
      if (dataEnd + 1 >= end || len > maxBulk || buf[dataEnd] !== CR || buf[dataEnd + 1] !== LF) return p;
      if (i < slotCount) {
        slotOff[i] = data;
        slotFull[i] = len;
      }
      if (sizes !== undefined) sizes.push(len);
      q = dataEnd + 2;
    }
    frame.start = base + p;
    frame.end = base + q;
    frame.inline = false;
    frame.argc = n;
    sink.frame(frame);
    p = q;
  }
  return p;
}
