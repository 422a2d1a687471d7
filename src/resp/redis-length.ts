import { Byte } from './bytes.js';

export const LENGTH_TOOK = 0;
export const LENGTH_ENDED = 1;
export const LENGTH_BAD = 2;

/** The magnitude of LLONG_MIN, the most negative length string2ll() reads (19 digits). */
const INT64_MIN_DIGITS = '9223372036854775808';

/**
 * A `*N` or `$L` request length read a byte at a time, by redis-server's string2ll() rules: at
 * least one digit, no leading zero (except "0" itself), an optional minus, no "-0", no plus, no
 * blanks. What is too big is for the caller to say (the two lengths have different limits), but
 * a negative one is for int64Negative() to judge: `value` is a double, exact to 15 digits only.
 */
export class RedisLength {
  value = 0;
  digits = 0;
  negative = false;
  /** A negative length's digits, as text: compared with LLONG_MIN's exactly (int64Negative). */
  private negativeDigits = '';

  reset(): void {
    this.value = 0;
    this.digits = 0;
    this.negative = false;
    this.negativeDigits = '';
  }

  /**
   * A negative length that string2ll() reads (at most 19 digits, down to -9223372036854775808): a
   * `*` count Redis takes as an empty request. Past that Redis answers "invalid multibulk length".
   */
  int64Negative(): boolean {
    const d = this.digits;
    return d < INT64_MIN_DIGITS.length || (d === INT64_MIN_DIGITS.length && this.negativeDigits <= INT64_MIN_DIGITS);
  }

  /** Takes one byte: LENGTH_TOOK, LENGTH_ENDED (the CR after the digits) or LENGTH_BAD. */
  take(c: number, minusAllowed: boolean): number {
    if (c >= Byte.D0 && c <= Byte.D9) {
      if (this.digits > 0 && this.value === 0) return LENGTH_BAD; // leading zero
      if (this.negative && this.digits === 0 && c === Byte.D0) return LENGTH_BAD; // -0
      this.value = this.value * 10 + (c - Byte.D0);
      this.digits++;
      if (this.negative) this.negativeDigits += String.fromCharCode(c);
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
