import { Byte } from './bytes.js';
import { splitInline } from './inline-split.js';
import { INLINE_MAX_BYTES } from './limits.js';
import type { HeadSlots } from './request-frame.js';

/** `read()` results other than a position. */
export const LINE_CONTINUES = -1;
export const LINE_TOO_LONG = -2;
export const LINE_UNBALANCED = -3;
/**
 * A NUL byte before the line's LF. redis-server looks for the LF with strchr(), which stops at the
 * NUL: it never reads this line (nor anything after it) and answers nothing until 64 KiB more came.
 */
export const LINE_HAS_NUL = -4;

/**
 * Reads one inline command line (up to its LF) across chunks and splits it. A line that lies in
 * one chunk is split in place; one that a chunk boundary cuts is copied, which is bounded: Redis
 * rejects an inline line over 64 KiB, and so do we, whatever the chunking.
 */
export class InlineLineReader {
  /** Arguments of the line `read()` completed (0 for a blank line). */
  argc = 0;
  private line: Buffer | null = null;
  private lineLen = 0;

  /**
   * Feeds buf[p..end). Returns the position just past the line's LF once complete (with `argc`
   * set and the head in `slots`), or LINE_CONTINUES, LINE_TOO_LONG, LINE_UNBALANCED (quotes) or
   * LINE_HAS_NUL.
   */
  read(buf: Buffer, p: number, end: number, slots: HeadSlots, sizes: number[] | undefined): number {
    const nl = buf.indexOf(Byte.LF, p);
    const lineEnd = nl < 0 || nl >= end ? end : nl;
    if (this.lineLen + (lineEnd - p) > INLINE_MAX_BYTES) return LINE_TOO_LONG;
    for (let i = p; i < lineEnd; i++) if (buf[i] === 0) return LINE_HAS_NUL;
    if (lineEnd === end || this.lineLen > 0) this.keep(buf, p, lineEnd);
    if (lineEnd === end) return LINE_CONTINUES;
    let src = buf;
    let s = p;
    let e = nl;
    if (this.lineLen > 0) {
      src = this.line!;
      s = 0;
      e = this.lineLen;
      this.lineLen = 0;
    }
    // Like Redis: a CR right before the LF ends the line; any other CR is a blank.
    if (e > s && src[e - 1] === Byte.CR) e--;
    if (sizes !== undefined) sizes.length = 0;
    this.argc = splitInline(src, s, e, slots, sizes);
    return this.argc < 0 ? LINE_UNBALANCED : nl + 1;
  }

  private keep(buf: Buffer, from: number, to: number): void {
    const need = this.lineLen + (to - from);
    if (this.line === null || this.line.length < need) {
      const size = Math.min(Math.max(need, 2 * (this.line?.length ?? 128)), INLINE_MAX_BYTES);
      const grown = Buffer.allocUnsafe(size);
      this.line?.copy(grown, 0, 0, this.lineLen);
      this.line = grown;
    }
    buf.copy(this.line, this.lineLen, from, to);
    this.lineLen = need;
  }
}
