/**
 * What JSON.parse does not say about a JSON text a user wrote (RFC 8259):
 * - where it stops being JSON, for the errors V8 gives without a position: a token no value starts with
 *   (`'x'`, `True`, `NaN`, `undefined`, a missing value, `[1,]`) comes out as `Unexpected token 'T',
 *   "...snippet..." is not valid JSON`, the snippet with the file's own line breaks in it, so a hand-edited
 *   file's commonest mistakes were the ones not placed. Only the place is found here; what is valid is
 *   JSON.parse's to say.
 * - a key given twice in one object, which JSON.parse takes silently, the last one winning: a second `"link"`
 *   in a config file would drop the first one's settings without a word, as a misspelt key would.
 */

/** The first character that cannot continue the text as JSON, or the first key an object has twice. */
export type JsonFinding = { kind: 'not-json'; at: number } | { kind: 'duplicate-key'; key: string; at: number };

/** Thrown to end the scan at its finding. */
class Found {
  constructor(readonly finding: JsonFinding) {}
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const LITERALS: Record<string, string> = { t: 'true', f: 'false', n: 'null' };
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** The first finding in reading order (`at` is `text.length` where it ended too soon), or undefined for JSON with each key once. */
export function scanJson(text: string): JsonFinding | undefined {
  let i = 0;
  const stop = (): never => {
    throw new Found({ kind: 'not-json', at: i });
  };
  const skipWhitespace = (): void => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  const take = (c: string): void => {
    if (text[i] !== c) stop();
    i++;
  };
  const digits = (): void => {
    if (!isDigit(text[i])) stop();
    while (isDigit(text[i])) i++;
  };

  function string(): void {
    take('"');
    for (;;) {
      const c = text[i];
      if (c === undefined || c < ' ') stop();
      i++;
      if (c === '"') return;
      if (c !== '\\') continue;
      if (text[i] === 'u') {
        i++;
        for (let k = 0; k < 4; k++) {
          if (!isHex(text[i])) stop();
          i++;
        }
      } else if (ESCAPES.has(text[i] ?? '')) i++;
      else stop();
    }
  }

  function number(): void {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  }

  /** `{...}` or `[...]`: members separated by commas, none after the last. */
  function members(open: string, close: string, member: () => void): void {
    take(open);
    skipWhitespace();
    if (text[i] === close) return void i++;
    for (;;) {
      member();
      skipWhitespace();
      if (text[i] !== ',') return take(close);
      i++;
    }
  }

  function value(): void {
    skipWhitespace();
    const c = text[i];
    const literal = c === undefined ? undefined : LITERALS[c];
    if (c === '{') {
      const keys = new Set<string>();
      members('{', '}', () => {
        skipWhitespace();
        const start = i;
        string();
        // Decoded, so "\u0061" and "a" are one key, as JSON.parse takes them.
        const key = JSON.parse(text.slice(start, i)) as string;
        if (keys.has(key)) throw new Found({ kind: 'duplicate-key', key, at: start });
        keys.add(key);
        skipWhitespace();
        take(':');
        value();
      });
    } else if (c === '[') members('[', ']', value);
    else if (c === '"') string();
    else if (c === '-' || isDigit(c)) number();
    else if (literal !== undefined) {
      // Letter by letter, as V8 does: `tru}` stops at the `}`.
      for (const letter of literal) take(letter);
    } else stop();
  }

  try {
    value();
    skipWhitespace();
    if (i < text.length) stop();
    return undefined;
  } catch (err) {
    if (err instanceof Found) return err.finding;
    // Nested deeper than the stack (thousands of levels), which JSON.parse takes: nothing found, its word stands.
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}
