import { Byte } from './bytes.js';

export const LENGTH_TOOK = 0;
export const LENGTH_ENDED = 1;
export const LENGTH_BAD = 2;

/**
 * A `*N` or `$L` request length read a byte at a time, by redis-server's string2ll() rules: at
 * least one digit, no leading zero (except "0" itself), an optional minus, no "-0", no plus, no
 * blanks. What is too big is for the caller to say (the two lengths have different limits).
 */
export class RedisLength {
  value = 0;
  digits = 0;
  negative = false;

  reset(): void {
    this.value = 0;
    this.digits = 0;
    this.negative = false;
  }

  /** Takes one byte: LENGTH_TOOK, LENGTH_ENDED (the CR after the digits) or LENGTH_BAD. */
  take(c: number, minusAllowed: boolean): number {
    if (c >= Byte.D0 && c <= Byte.D9) {
      if (this.digits > 0 && this.value === 0) return LENGTH_BAD; // leading zero
      if (this.negative && this.digits === 0 && c === Byte.D0) return LENGTH_BAD; // -0
      this.value = this.value * 10 + (c - Byte.D0);
      this.digits++;
      return LENGTH_TOOK;
    }
    if (c === Byte.CR && this.digits > 0) return LENGTH_ENDED;
    if (c === Byte.Minus && minusAllowed && this.digits === 0 && !this.negative) {
      this.negative = true;
      return LENGTH_TOOK;
    }
    return LENGTH_BAD;
  }
}
