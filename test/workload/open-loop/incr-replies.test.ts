import { describe, expect, it } from 'vitest';
import { seededUniform } from '../../../src/link/rng.js';
import { IncrReplyReader } from '../../../src/workload/open-loop/incr-replies.js';

/** What the reader reported, as plain strings: 'ok', 'err <text>', 'unreadable <what>'. */
function read(chunks: Uint8Array[]): string[] {
  const out: string[] = [];
  const reader = new IncrReplyReader({
    reply: (error) => out.push(error === undefined ? 'ok' : `err ${error}`),
    unreadable: (what) => out.push(`unreadable ${what}`),
  });
  for (const c of chunks) reader.push(c);
  return out;
}

/** Every case whole, byte by byte, and at seeded random splits (the framer convention). */
function splits(bytes: Buffer): Uint8Array[][] {
  const out: Uint8Array[][] = [[bytes], [...bytes].map((b) => Uint8Array.of(b))];
  for (let seed = 1; seed <= 20; seed++) {
    const r = seededUniform(seed);
    const parts: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; ) {
      const n = 1 + Math.floor(r() * 7);
      parts.push(bytes.subarray(at, at + n));
      at += n;
    }
    out.push(parts);
  }
  return out;
}

const CASES: [string, string, string[]][] = [
  ['integers', ':1\r\n:22\r\n:-3\r\n:9223372036854775807\r\n', ['ok', 'ok', 'ok', 'ok']],
  ['a server error between integers', ':1\r\n-ERR value is not an integer or out of range\r\n:2\r\n', ['ok', 'err ERR value is not an integer or out of range', 'ok']],
  ['a bulk string is no INCR reply', ':1\r\n$1\r\nx\r\n:2\r\n', ['ok', 'unreadable a reply of type "$", not an integer']],
  ['a RESP3 null is no INCR reply', '_\r\n', ['unreadable a reply of type "_", not an integer']],
  ['digits only', ':1x\r\n', ['unreadable an integer reply with a non-digit']],
  ['CR without LF', ':1\r:2\r\n', ['unreadable a reply line not ended by CRLF']],
  ['an incomplete reply is not reported', ':1\r\n:2', ['ok']],
];

describe('IncrReplyReader', () => {
  for (const [name, text, expected] of CASES) {
    it(`${name}: whole, byte by byte and at random splits`, () => {
      for (const chunks of splits(Buffer.from(text, 'latin1'))) expect(read(chunks)).toEqual(expected);
    });
  }

  it('reads only the first `length` bytes of a shared read buffer', () => {
    const out: string[] = [];
    const reader = new IncrReplyReader({ reply: () => out.push('ok'), unreadable: (w) => out.push(w) });
    const buf = Buffer.from(':1\r\n:2\r\ngarbage');
    reader.push(buf, 8);
    expect(out).toEqual(['ok', 'ok']);
  });
});
