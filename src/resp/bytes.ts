/**
 * Byte values the framers compare against, as a const enum so tsc writes them as literals. V8
 * (Node 20) reloads an imported or module-level `const` on every use inside a hot loop, a cost the
 * request fast path notices (docs/measurements.md). Type bytes equal RespType's
 * (test/resp/bytes.test.ts checks).
 */
// The same byte under two names (a sign and a RESP type byte) is deliberate.
/* eslint-disable @typescript-eslint/no-duplicate-enum-values */
export const enum Byte {
  CR = 0x0d,
  LF = 0x0a,
  Space = 0x20,
  Minus = 0x2d,
  PlusSign = 0x2b,
  Question = 0x3f,
  Semicolon = 0x3b,
  Dot = 0x2e,
  D0 = 0x30,
  D1 = 0x31,
  D9 = 0x39,
  // RESP type bytes
  Plus = 0x2b,
  Error = 0x2d,
  Colon = 0x3a,
  Dollar = 0x24,
  Star = 0x2a,
  Underscore = 0x5f,
  Hash = 0x23,
  Comma = 0x2c,
  Paren = 0x28,
  Bang = 0x21,
  Equals = 0x3d,
  Percent = 0x25,
  Tilde = 0x7e,
  Pipe = 0x7c,
  Push = 0x3e,
}

/** Limits from limits.ts that hot loops compare against, as literals for the same reason. */
export const enum HotLimit {
  MaxArgs = 2147483647, // MULTIBULK_MAX_ARGS
  ShortText = 32, // SHORT_TEXT_MAX_BYTES
  NameMaxBytes = 32, // NAME_MAX_BYTES
}
/* eslint-enable @typescript-eslint/no-duplicate-enum-values */
