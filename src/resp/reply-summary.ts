import { Byte, HotLimit } from './bytes.js';
import { errorCodeOf, headWords, simpleTexts } from './short-text.js';
import type { ReplyFrame } from './types.js';

/**
 * What the top-level reply being framed will report besides its bounds: `simple`, `errorPrefix`,
 * `elements`, `head`, `lastInt`. It keeps the first 33 bytes of the one value that names the frame
 * (a top-level + - !, or the first element of a top-level * or >), one more than is ever reported,
 * so "longer than 32" is known without keeping more.
 */
export class ReplySummary {
  /** Whether the value being read is one whose bytes are kept. */
  capturing = false;
  /** Element count of the top-level aggregate (-1 for `*-1`). */
  elements = 0;
  /** Pooled, not zeroed: read only up to capLen. */
  private readonly cap = Buffer.allocUnsafe(HotLimit.ShortText + 1);
  private capLen = 0;
  private head: string | undefined = undefined;
  private lastIntValid = false;
  private lastInt = 0;

  /** A value starts: `depth` aggregates are open, `firstOfTop` says it is element 0 of a * or >. */
  startValue(t: number, depth: number, firstOfTop: boolean): void {
    if (depth === 0) {
      this.head = undefined;
      this.lastIntValid = false;
    }
    // A boolean is always kept: its one byte is checked (#t / #f).
    const named = depth === 0
      ? t === Byte.Plus || t === Byte.Error || t === Byte.Bang
      : firstOfTop && (t === Byte.Dollar || t === Byte.Plus);
    this.capturing = named || t === Byte.Hash;
    this.capLen = 0;
  }

  keep(buf: Buffer, from: number, to: number): void {
    const n = Math.min(this.cap.length - this.capLen, to - from);
    if (n > 0) {
      buf.copy(this.cap, this.capLen, from, from + n);
      this.capLen += n;
    }
  }

  /** First kept byte (of a boolean). */
  get firstByte(): number {
    return this.capLen > 0 ? this.cap[0]! : -1;
  }

  /**
   * An element of the top-level aggregate ended, of type `t`, `len` bytes long (-1: null or
   * streamed string), with `int` as its value when an integer.
   */
  topElementDone(t: number, first: boolean, len: number, int: number): void {
    if (first && this.capturing && len >= 0 && len <= HotLimit.ShortText && (t === Byte.Dollar || t === Byte.Plus)) {
      this.head = headWords.get(this.cap, 0, len);
    }
    this.lastIntValid = t === Byte.Colon;
    this.lastInt = int;
  }

  /** Fills the frame's optional fields for a top-level value of type `t` (`len`: its length). */
  fill(f: ReplyFrame, t: number, len: number): void {
    const aggregate = t === Byte.Star || t === Byte.Push;
    f.elements = aggregate ? this.elements : undefined;
    f.head = aggregate ? this.head : undefined;
    f.lastInt = aggregate && this.lastIntValid ? this.lastInt : undefined;
    f.simple = t === Byte.Plus && len <= HotLimit.ShortText ? simpleTexts.get(this.cap, 0, len) : undefined;
    f.errorPrefix = t === Byte.Error || t === Byte.Bang ? errorCodeOf(this.cap, 0, this.capLen) : undefined;
  }
}
