import { Byte } from './bytes.js';

export const NUMBER_MORE = 0;
export const NUMBER_ENDED = 1;
export const NUMBER_BAD = 2;

/**
 * The number on a reply line, read in runs of digits across chunks: an integer (`:` and `(`, which
 * may open with `-` or `+`) or a length (which may be `-1`, a RESP2 null, or `?`, streamed).
 * Lenient where servers differ (leading zeros); what a length may be is for the caller to say.
 */
export class ReplyNumber {
  value = 0;
  digits = 0;
  negative = false;
  streamed = false;
  /** Bytes of the line so far (sign and `?` included). */
  lineLen = 0;

  reset(): void {
    this.value = 0;
    this.digits = 0;
    this.negative = false;
    this.streamed = false;
    this.lineLen = 0;
  }

  /** Reads from buf[p]; sets `this.next` to where it stopped. Returns NUMBER_MORE/ENDED/BAD. */
  read(buf: Buffer, p: number, end: number, integer: boolean): number {
    let value = this.value;
    let digits = this.digits;
    let c = 0;
    while (p < end && (c = buf[p]!) >= Byte.D0 && c <= Byte.D9) {
      value = value * 10 + (c - Byte.D0);
      digits++;
      p++;
    }
    this.lineLen += digits - this.digits;
    this.value = value;
    this.digits = digits;
    this.next = p;
    if (p >= end) return NUMBER_MORE;
    this.next = p + 1;
    if (c === Byte.CR) return NUMBER_ENDED;
    const first = this.lineLen === 0;
    this.lineLen++;
    if (first && c === Byte.Minus) this.negative = true;
    else if (first && c === Byte.Question && !integer) this.streamed = true;
    else if (!(first && c === Byte.PlusSign && integer)) return NUMBER_BAD;
    return NUMBER_MORE;
  }

  /** Where read() stopped. */
  next = 0;
}
