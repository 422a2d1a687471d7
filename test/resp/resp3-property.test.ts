import RedisParser from 'redis-parser';
import { describe, expect, it } from 'vitest';
import { fixedCuts, prng, randomCuts, runReplies, runRequests, withTypeChar } from './harness.js';
import { parseAll, summarizeReply } from './reference-parser.js';

/**
 * Property: for any valid stream of RESP2/RESP3 replies (every type, nested, attributed, streamed,
 * empty, large) and of requests (multibulk and inline), the framers report the frames a second,
 * independent parser finds, with the same summary, whether the stream arrives whole, byte by byte
 * or in random splits. Seeded (a failure names its seed) and bounded by a case count.
 */

type Rnd = () => number;

const pick = <T>(rnd: Rnd, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** Bytes that stress a framer: CR, LF, CRLF, type bytes, NUL, high bytes. */
function blob(rnd: Rnd, max: number): Buffer {
  const n = Math.floor(rnd() * (max + 1));
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = rnd() < 0.3 ? pick(rnd, [13, 10, 0x2a, 0x24, 0x2e, 0x3b, 0, 0xff]) : Math.floor(rnd() * 256);
  return out;
}

/** Line text: anything but CR and LF. */
function lineText(rnd: Rnd, max: number): string {
  const alphabet = 'abcXYZ 019-+.:$*%~|>_#,(!=;?"\'\t\x00\x7f';
  return Array.from({ length: Math.floor(rnd() * (max + 1)) }, () => pick(rnd, [...alphabet])).join('');
}

const DOUBLES = ['inf', '-inf', 'nan', '0', '-0', '1.5', '-3.25e-10', '1e300', '3.14159265358979'];

function scalar(rnd: Rnd, resp3: boolean): Buffer {
  const r = rnd() * (resp3 ? 16 : 7);
  const len = (b: Buffer, t: string) => Buffer.concat([Buffer.from(`${t}${b.length}\r\n`), b, Buffer.from('\r\n')]);
  if (r < 1) return Buffer.from(`+${pick(rnd, ['OK', 'QUEUED', 'PONG', lineText(rnd, 40)])}\r\n`, 'latin1');
  if (r < 2) return Buffer.from(`-${pick(rnd, ['ERR', 'WRONGTYPE', 'MOVED', 'NOPERM', lineText(rnd, 8)])} ${lineText(rnd, 40)}\r\n`, 'latin1');
  if (r < 3) return Buffer.from(`:${pick(rnd, ['0', '-1', '+7', String(Math.floor((rnd() - 0.5) * 2 ** 53))])}\r\n`);
  if (r < 4.5) return len(rnd() < 0.02 ? blob(rnd, 200_000) : blob(rnd, 60), '$');
  if (r < 5) return Buffer.from(pick(rnd, ['$-1\r\n', '$0\r\n\r\n']));
  if (r < 5.5) return len(Buffer.from(pick(rnd, ['message', 'Subscribe', 'pmessage', 'smessage', 'invalidate'])), '$');
  if (r < 7) return Buffer.from(`:${Math.floor(rnd() * 1000)}\r\n`);
  if (r < 8) return Buffer.from(`,${pick(rnd, DOUBLES)}\r\n`);
  if (r < 9) return Buffer.from(`(${pick(rnd, ['-', ''])}${'9'.repeat(1 + Math.floor(rnd() * 60))}\r\n`);
  if (r < 10) return Buffer.from(pick(rnd, ['#t\r\n', '#f\r\n', '_\r\n']));
  if (r < 11) return len(Buffer.concat([Buffer.from(pick(rnd, ['txt:', 'mkd:'])), blob(rnd, 40)]), '=');
  if (r < 12) return len(Buffer.concat([Buffer.from(pick(rnd, ['SYNTAX ', 'ERR ', ''])), blob(rnd, 30)]), '!');
  if (r < 13) {
    // A streamed string: `$?` then `;N` chunks, `;0` ends it.
    const chunks = Array.from({ length: Math.floor(rnd() * 4) }, () => blob(rnd, 20)).filter((c) => c.length > 0);
    return Buffer.concat([Buffer.from('$?\r\n'), ...chunks.map((c) => len(c, ';')), Buffer.from(';0\r\n')]);
  }
  return Buffer.from(`+${lineText(rnd, 10)}\r\n`, 'latin1');
}

function value(rnd: Rnd, depth: number, resp3: boolean): Buffer {
  const parts: Buffer[] = [];
  // An attribute may precede any RESP3 value, top level or nested.
  if (resp3 && depth < 3 && rnd() < 0.08) parts.push(aggregate(rnd, '|', depth, resp3));
  const aggregateOdds = depth === 0 ? 0.45 : depth < 4 ? 0.25 : 0;
  if (rnd() < aggregateOdds) parts.push(aggregate(rnd, resp3 ? pick(rnd, ['*', '*', '%', '~', '>']) : '*', depth, resp3));
  else parts.push(scalar(rnd, resp3));
  return Buffer.concat(parts);
}

function aggregate(rnd: Rnd, type: string, depth: number, resp3: boolean): Buffer {
  if (type === '*' && rnd() < 0.05) return Buffer.from('*-1\r\n');
  const n = rnd() < 0.15 ? 0 : Math.floor(rnd() * (rnd() < 0.05 ? 200 : 6));
  const pairs = type === '%' || type === '|';
  const children = Array.from({ length: pairs ? 2 * n : n }, () => value(rnd, depth + 1, resp3));
  // RESP3 lets arrays, sets and maps stream their elements until a `.` line.
  const streamed = resp3 && (type === '*' || type === '%' || type === '~') && rnd() < 0.15;
  if (streamed) return Buffer.concat([Buffer.from(`${type}?\r\n`), ...children, Buffer.from('.\r\n')]);
  return Buffer.concat([Buffer.from(`${type}${n}\r\n`), ...children]);
}

function stream(seed: number, resp3: boolean): Buffer {
  const rnd = prng(seed);
  return Buffer.concat(Array.from({ length: 1 + Math.floor(rnd() * 40) }, () => value(rnd, 0, resp3)));
}

const SEEDS = Array.from({ length: 150 }, (_, i) => i + 1);

describe('ReplyFramer: random valid RESP3 streams against the reference parser', () => {
  it('frames and summarizes every top-level value, at every chunking, for 150 seeded streams', () => {
    let frames = 0;
    for (const seed of SEEDS) {
      const bytes = stream(seed, true);
      const want = parseAll(bytes).map((v) => summarizeReply(v));
      expect(want.at(-1)?.end, `seed ${seed}: the reference reads the whole stream`).toBe(bytes.length);
      const plans = [[bytes.length], randomCuts(bytes.length, seed), ...(bytes.length < 20_000 ? [fixedCuts(bytes.length, 1)] : [])];
      for (const sizes of plans) {
        const run = runReplies(bytes, sizes);
        expect(run.desyncs, `seed ${seed}`).toEqual([]);
        expect(run.frames.map(withTypeChar), `seed ${seed}, ${sizes.length} chunks`).toEqual(want);
      }
      frames += want.length;
    }
    expect(frames).toBeGreaterThan(1000);
  });
});

describe('ReplyFramer: random valid RESP2 streams against redis-parser', () => {
  it('ends a frame where redis-parser returns a reply, at every chunking, for 150 seeded streams', () => {
    for (const seed of SEEDS) {
      const bytes = stream(seed, false);
      // redis-parser reports no offsets: feed it one frame's bytes at a time, it must return exactly one reply.
      const run = runReplies(bytes, randomCuts(bytes.length, seed + 1000));
      expect(run.desyncs, `seed ${seed}`).toEqual([]);
      expect(run.frames.at(-1)?.end).toBe(bytes.length);
      let replies = 0;
      const parser = new RedisParser({
        returnBuffers: true,
        returnReply: () => replies++,
        returnError: () => replies++,
        returnFatalError: (e: Error) => {
          throw e;
        },
      });
      for (const f of run.frames) {
        const before = replies;
        parser.execute(bytes.subarray(f.start, f.end));
        expect(replies - before, `seed ${seed}: frame ${f.start}..${f.end}`).toBe(1);
      }
    }
  });
});

/** A random request: multibulk with binary arguments, or an inline line of plain words; sometimes an empty one. */
function request(rnd: Rnd): { bytes: Buffer; args: Buffer[] | null; inline: boolean } {
  const r = rnd();
  if (r < 0.05) return { bytes: Buffer.from(pick(rnd, ['*0\r\n', '*-1\r\n', '\r\n', '\n', '  \t\r\n'])), args: null, inline: false };
  const argc = 1 + Math.floor(rnd() * 5);
  if (r < 0.3) {
    const words = Array.from({ length: argc }, () => Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => pick(rnd, [...'abcXYZ019-:.*$'])).join('')));
    const sep = () => pick(rnd, [' ', '  ', '\t']);
    const line = `${pick(rnd, ['', ' '])}${words.map((w) => w.toString()).join(sep())}${pick(rnd, ['', ' '])}${pick(rnd, ['\r\n', '\n'])}`;
    // A line opening with `*` is a multibulk header to Redis: keep inline lines inline.
    if (line.startsWith('*')) return request(rnd);
    return { bytes: Buffer.from(line), args: words, inline: true };
  }
  const args = Array.from({ length: argc }, () => (rnd() < 0.01 ? blob(rnd, 100_000) : blob(rnd, 40)));
  args[0] = Buffer.from(pick(rnd, ['GET', 'SET', 'client', 'PING', 'EXEC']));
  const bytes = Buffer.concat([Buffer.from(`*${argc}\r\n`), ...args.flatMap((a) => [Buffer.from(`$${a.length}\r\n`), a, Buffer.from('\r\n')])]);
  return { bytes, args, inline: false };
}

describe('RequestFramer: random multibulk and inline requests', () => {
  it('frames each request with its argc, argument sizes and head, at every chunking, for 150 seeded streams', () => {
    for (const seed of SEEDS) {
      const rnd = prng(seed);
      const parts = Array.from({ length: 1 + Math.floor(rnd() * 60) }, () => request(rnd));
      const bytes = Buffer.concat(parts.map((p) => p.bytes));
      const want: { start: number; end: number; argc: number; inline: boolean; argSizes: number[]; head: string[] }[] = [];
      let at = 0;
      for (const p of parts) {
        if (p.args !== null) {
          want.push({
            start: at, end: at + p.bytes.length, argc: p.args.length, inline: p.inline, argSizes: p.args.map((a) => a.length),
            head: p.args.slice(0, 3).map((a) => a.subarray(0, 64).toString('latin1')),
          });
        }
        at += p.bytes.length;
      }
      const plans = [[bytes.length], randomCuts(bytes.length, seed), ...(bytes.length < 20_000 ? [fixedCuts(bytes.length, 1)] : [])];
      for (const sizes of plans) {
        const run = runRequests(bytes, sizes, { argSizes: true });
        expect(run.desyncs, `seed ${seed}`).toEqual([]);
        expect(run.frames.map(({ start, end, argc, inline, argSizes, head }) => ({ start, end, argc, inline, argSizes, head })), `seed ${seed}`)
          .toEqual(want);
      }
    }
  });
});
