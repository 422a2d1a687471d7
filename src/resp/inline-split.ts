import type { HeadSlots } from './request-frame.js';

/**
 * Splits one inline command line (`SET "a b" 'c'`, CR/LF already cut off) exactly as
 * redis-server's sdssplitargs() does, so argc matches what Redis executes: blanks separate
 * arguments; "double quotes" take \xHH, \n, \r, \t, \b, \a and \<any> escapes; 'single quotes'
 * take \' only; a closing quote must be followed by a blank or the end. Redis reads the line as a
 * C string, so it ends at the first NUL byte.
 *
 * Returns argc (0 for a blank line, which Redis ignores), or -1 for unbalanced quotes (Redis
 * replies with a protocol error and closes the connection). The decoded bytes of the first
 * `slots.count` arguments go to the slots' scratch area; every argument's length to `sizes`;
 * every argument, whole, to `args` when given (what a frame stage sees, stage/request-info.ts).
 */
export function splitInline(
  line: Uint8Array,
  s: number,
  e: number,
  slots: HeadSlots,
  sizes: number[] | undefined,
  args?: Buffer[],
): number {
  for (let i = s; i < e; i++) {
    if (line[i] === 0) {
      e = i;
      break;
    }
  }
  const cap = slots.capBytes;
  const scratch = slots.scratch;
  // An argument decodes to at most its raw bytes.
  const whole = args === undefined ? undefined : Buffer.allocUnsafe(e - s);
  slots.filled = 0;
  let argc = 0;
  let p = s;
  for (;;) {
    while (p < e && isBlank(line[p]!)) p++;
    if (p >= e) return argc;
    const slot = argc < slots.count ? argc : -1;
    const at = slot * cap;
    let n = 0;
    let inDouble = false;
    let inSingle = false;
    let done = false;
    while (!done) {
      const c = p < e ? line[p]! : 0;
      let out = -1;
      if (inDouble) {
        if (c === BACKSLASH && p + 3 < e && line[p + 1] === LOWER_X && isHex(line[p + 2]!) && isHex(line[p + 3]!)) {
          out = hexValue(line[p + 2]!) * 16 + hexValue(line[p + 3]!);
          p += 3;
        } else if (c === BACKSLASH && p + 1 < e) {
          p++;
          out = unescape(line[p]!);
        } else if (c === DOUBLE_QUOTE) {
          if (p + 1 < e && !isBlank(line[p + 1]!)) return -1;
          done = true;
        } else if (p >= e) {
          return -1;
        } else {
          out = c;
        }
      } else if (inSingle) {
        if (c === BACKSLASH && p + 1 < e && line[p + 1] === SINGLE_QUOTE) {
          p++;
          out = SINGLE_QUOTE;
        } else if (c === SINGLE_QUOTE) {
          if (p + 1 < e && !isBlank(line[p + 1]!)) return -1;
          done = true;
        } else if (p >= e) {
          return -1;
        } else {
          out = c;
        }
      } else if (p >= e || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        // Unquoted, Redis ends an argument only at these four (not at \v or \f).
        done = true;
      } else if (c === DOUBLE_QUOTE) {
        inDouble = true;
      } else if (c === SINGLE_QUOTE) {
        inSingle = true;
      } else {
        out = c;
      }
      if (out >= 0) {
        if (slot >= 0 && n < cap) scratch[at + n] = out;
        if (whole !== undefined) whole[n] = out;
        n++;
      }
      if (p < e) p++;
    }
    if (slot >= 0) {
      slots.toScratch(slot);
      slots.full[slot] = n;
      slots.filled = slot + 1;
    }
    if (sizes !== undefined) sizes.push(n);
    if (whole !== undefined) args!.push(Buffer.from(whole.subarray(0, n)));
    argc++;
  }
}

const BACKSLASH = 0x5c;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const LOWER_X = 0x78;

/** C isspace(): space, \t, \n, \v, \f, \r. */
function isBlank(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10;
}

function unescape(c: number): number {
  switch (c) {
    case 0x6e: return 0x0a; // \n
    case 0x72: return 0x0d; // \r
    case 0x74: return 0x09; // \t
    case 0x62: return 0x08; // \b
    case 0x61: return 0x07; // \a
    default: return c;
  }
}
