import RedisParser from 'redis-parser';
import { describe, expect, it } from 'vitest';
import { fixedCuts, loadFixture, prng, randomCuts, runReplies, runRequests, withTypeChar } from './harness.js';
import { parseAll, summarizeReply } from './reference-parser.js';

/**
 * RESP2 streams through redis-parser and through the framers: same number of frames, same
 * classification (error / null / integer / string / array of n). redis-parser cannot read RESP3
 * or inline commands, so only RESP2 material goes here.
 */

type Kind = string;

function parserKinds(bytes: Buffer, sizes: number[]): Kind[] {
  const kinds: Kind[] = [];
  const parser = new RedisParser({
    returnBuffers: true,
    returnReply: (r: unknown) => kinds.push(classify(r)),
    returnError: () => kinds.push('error'),
    returnFatalError: (e: Error) => {
      throw e;
    },
  });
  let at = 0;
  for (const size of sizes) {
    parser.execute(bytes.subarray(at, at + size));
    at += size;
  }
  return kinds;
}

function classify(r: unknown): Kind {
  if (r === null) return 'null';
  if (typeof r === 'number') return 'integer';
  if (Buffer.isBuffer(r)) return 'string';
  if (Array.isArray(r)) return `array ${r.length}`;
  return `other ${typeof r}`;
}

function framerKinds(bytes: Buffer, sizes: number[]): Kind[] {
  const run = runReplies(bytes, sizes);
  expect(run.desynced).toBe(false);
  return run.frames.map((f) => {
    const t = String.fromCharCode(f.type);
    if (t === '-') return 'error';
    if (t === ':') return 'integer';
    if (t === '*') return f.elements === -1 ? 'null' : `array ${f.elements}`;
    // A null bulk string is type $ like any bulk string; redis-parser says null.
    if (t === '$' && bytes.subarray(f.start, f.start + 4).toString() === '$-1\r') return 'null';
    return 'string';
  });
}

/** A random RESP2 value: strings with CR/LF and binary inside, nulls, errors, nested arrays. */
function randomValue(rnd: () => number, depth: number): string {
  const r = rnd();
  const text = () => Array.from({ length: Math.floor(rnd() * 12) }, () => String.fromCharCode(32 + Math.floor(rnd() * 90))).join('');
  const binary = () => Array.from({ length: Math.floor(rnd() * 40) }, () => String.fromCharCode(Math.floor(rnd() * 256))).join('');
  if (depth < 4 && r < 0.2) {
    const n = Math.floor(rnd() * 6);
    return `*${n}\r\n${Array.from({ length: n }, () => randomValue(rnd, depth + 1)).join('')}`;
  }
  if (r < 0.3) return `+${text()}\r\n`;
  if (r < 0.4) return `-ERR ${text()}\r\n`;
  if (r < 0.55) return `:${Math.floor((rnd() - 0.5) * 1e12)}\r\n`;
  if (r < 0.6) return '$-1\r\n';
  if (r < 0.63) return '*-1\r\n';
  const s = binary();
  return `$${s.length}\r\n${s}\r\n`;
}

describe('ReplyFramer vs redis-parser', () => {
  it.each(['resp2-basic', 'pubsub-resp2', 'multi-exec', 'big-value', 'nested', 'inline', 'monitor'])(
    'agrees on the recorded %s replies',
    (name) => {
      const { down } = loadFixture(name);
      for (const sizes of [[down.length], randomCuts(down.length, 11)]) {
        expect(framerKinds(down, sizes)).toEqual(parserKinds(down, sizes));
      }
    },
  );

  it('agrees on 3000 random RESP2 values, whole and at random splits', () => {
    const rnd = prng(2024);
    const bytes = Buffer.from(Array.from({ length: 3000 }, () => randomValue(rnd, 0)).join(''), 'latin1');
    const expected = parserKinds(bytes, [bytes.length]);
    expect(expected).toHaveLength(3000);
    expect(framerKinds(bytes, [bytes.length])).toEqual(expected);
    for (const seed of [1, 2, 3]) expect(framerKinds(bytes, randomCuts(bytes.length, seed))).toEqual(expected);
  });
});

/**
 * What redis-server 7.0.15 wrote to one RESP3 connection (HELLO 3, `DEBUG PROTOCOL` of each type: an
 * attribute, a big number, a verbatim string, a push; CLIENT TRACKING; SUBSCRIBE; a MULTI whose EXEC
 * array holds the message its PUBLISH pushed, an attributed reply, a big number and a verbatim
 * string; the invalidation after it). redis-parser reads no RESP3: the reference parser is the oracle.
 */
const REDIS_7_RESP3 =
  '%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n' +
  '$2\r\nid\r\n:3\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\n' +
  'modules\r\n*0\r\n$11\r\nHello World\r\n:12345\r\n,3.141\r\n' +
  '(1234567999999999999999999999999999999\r\n_\r\n*3\r\n:0\r\n:1\r\n:2\r\n~3\r\n:0\r\n' +
  ':1\r\n:2\r\n%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\n' +
  'key:123\r\n:90\r\n$39\r\nSome real reply following the attribute\r\n>2\r\n$16\r\n' +
  'server-cpu-usage\r\n:42\r\n$40\r\nSome real reply following the push reply\r\n' +
  '=29\r\ntxt:This is a verbatim\nstring\r\n#t\r\n#f\r\n+OK\r\n+OK\r\n$1\r\n1\r\n>3\r\n$9\r\n' +
  'subscribe\r\n$2\r\nch\r\n:1\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n' +
  '+QUEUED\r\n*5\r\n+OK\r\n>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n:1\r\n|1\r\n$14\r\n' +
  'key-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$39\r\n' +
  'Some real reply following the attribute\r\n' +
  '(1234567999999999999999999999999999999\r\n=29\r\n' +
  'txt:This is a verbatim\nstring\r\n>2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\ntk\r\n' +
  '+PONG\r\n';

describe('ReplyFramer vs the reference parser, on a real RESP3 session', () => {
  it('agrees on every frame of it, whole, byte by byte and at random splits', () => {
    const bytes = Buffer.from(REDIS_7_RESP3, 'latin1');
    const want = parseAll(bytes).map(summarizeReply);
    // The push inside EXEC's array is read as one of its 5 elements, as hiredis reads it (docs/counters.md):
    // the verbatim string the array really ends with comes as a frame of its own.
    expect(want.map((r) => r.type + (r.elements ?? '')).join(' ')).toBe('% $ : , ( _ *3 ~ % $ >2 $ = # # + + $ >3 + + + + + + *5 = >2 +');
    for (const sizes of [[bytes.length], fixedCuts(bytes.length, 1), randomCuts(bytes.length, 7)]) {
      const run = runReplies(bytes, sizes);
      expect(run.desynced).toBe(false);
      expect(run.frames.map(withTypeChar)).toEqual(want);
    }
  });
});

describe('RequestFramer vs redis-parser', () => {
  it('agrees on argc, argument sizes and head bytes of random multibulk requests', () => {
    const rnd = prng(99);
    const requests: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const argc = 1 + Math.floor(rnd() * 6);
      const args = Array.from({ length: argc }, () =>
        Array.from({ length: Math.floor(rnd() * (rnd() < 0.05 ? 3000 : 20)) }, () => String.fromCharCode(Math.floor(rnd() * 256))).join(''));
      requests.push(`*${argc}\r\n${args.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`);
    }
    const bytes = Buffer.from(requests.join(''), 'latin1');
    const parsed: Buffer[][] = [];
    const parser = new RedisParser({
      returnBuffers: true,
      returnReply: (r: unknown) => parsed.push(r as Buffer[]),
      returnError: (e: Error) => {
        throw e;
      },
    });
    parser.execute(bytes);
    const want = parsed.map((args) => ({
      argc: args.length,
      argSizes: args.map((a) => a.length),
      head: args.slice(0, 3).map((a) => a.subarray(0, 64).toString('latin1')),
    }));
    for (const sizes of [[bytes.length], randomCuts(bytes.length, 5)]) {
      const run = runRequests(bytes, sizes, { argSizes: true });
      expect(run.frames.map(({ argc, argSizes, head }) => ({ argc, argSizes, head }))).toEqual(want);
    }
  });
});
