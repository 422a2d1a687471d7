import { describe, expect, it } from 'vitest';
import { learnProvenName } from '../../src/resp/command-name.js';
import { requestCommandName } from '../../src/resp/request-frame.js';
import { RequestFramer } from '../../src/resp/request-framer.js';
import type { RequestFrame } from '../../src/resp/types.js';
import { encode } from './fixture-sessions.js';
import { fixedCuts, randomCuts, runRequests } from './harness.js';

const b = (s: string) => Buffer.from(s, 'latin1');
const whole = (s: Buffer) => [s.length];

describe('RequestFramer: multibulk', () => {
  it('reports argc, head, offsets and, on request, every argument size', () => {
    const bytes = encode([['SET', 'key:1', 'value'], ['GET', 'key:1']]);
    const run = runRequests(bytes, whole(bytes), { argSizes: true });
    expect(run.frames).toEqual([
      { start: 0, end: 35, argc: 3, inline: false, name: 'SET', head: ['SET', 'key:1', 'value'], argSizes: [3, 5, 5] },
      { start: 35, end: 59, argc: 2, inline: false, name: 'GET', head: ['GET', 'key:1'], argSizes: [3, 5] },
    ]);
    expect(runRequests(bytes, whole(bytes)).frames[0]!.argSizes).toBeUndefined();
  });

  it('keeps headArgs arguments of at most headBytes each, and still names the command', () => {
    const bytes = encode([['client', 'tracking', 'on', 'REDIRECT', '7'], ['SET', 'k'.repeat(100), 'v']]);
    for (const sizes of [whole(bytes), fixedCuts(bytes.length, 1)]) {
      expect(runRequests(bytes, sizes, { headArgs: 1, headBytes: 2 }).frames.map((f) => [f.name, f.head]))
        .toEqual([['CLIENT TRACKING', ['cl']], ['SET', ['SE']]]);
      expect(runRequests(bytes, sizes, { headArgs: 0 }).frames.map((f) => [f.name, f.head]))
        .toEqual([['CLIENT TRACKING', []], ['SET', []]]);
      expect(runRequests(bytes, sizes).frames[1]!.head).toEqual(['SET', 'k'.repeat(64), 'v']);
    }
  });

  it('lets a sink copy the frame with spread or JSON, head included', () => {
    const copies: RequestFrame[] = [];
    let json = '';
    const framer = new RequestFramer({
      frame: (f) => {
        copies.push({ ...f, head: f.head.map((h) => Buffer.from(h)) });
        json = JSON.stringify(f);
      },
    });
    framer.push(encode([['CONFIG', 'GET', 'maxmemory']]));
    expect(copies[0]!.head.map(String)).toEqual(['CONFIG', 'GET', 'maxmemory']);
    expect(Object.keys(copies[0]!).sort()).toEqual(['argSizes', 'argc', 'end', 'head', 'inline', 'start']);
    expect(requestCommandName(copies[0]!)).toBe('CONFIG GET');
    expect(JSON.parse(json).head).toHaveLength(3);
  });

  it('names each frame afresh when the command changes, container and unknown names included', () => {
    const names: string[] = [];
    const framer = new RequestFramer({ frame: (f) => names.push(requestCommandName(f)) });
    const requests = [
      ['GET', 'k'], ['GET', 'k'], ['get', 'k'], ['CLIENT'], ['CLIENT', 'REPLY', 'ON'], ['CLIENT', 'ID'],
      ['CLIENT', 'NOPE'], ['GETX', 'k'], ['GE', 'k'], ['GET'], ['TAPCOST.FOO', 'k'], ['TAPCOST.FOO', 'k'],
    ];
    const bytes = Buffer.concat([encode(requests.slice(0, 10)), b('PING\r\nget k\r\n'), encode(requests.slice(10, 11))]);
    framer.push(bytes);
    learnProvenName('TAPCOST.FOO'); // Redis answered it: later requests get the name
    framer.push(encode(requests.slice(11)));
    expect(names).toEqual([
      'GET', 'GET', 'GET', 'CLIENT', 'CLIENT REPLY', 'CLIENT ID', 'CLIENT ?', '?', '?', 'GET', 'PING', 'GET', '?', 'TAPCOST.FOO',
    ]);
  });

  it('consumes the requests Redis ignores (*0, *-1) without reporting them', () => {
    const bytes = Buffer.concat([b('*0\r\n*-1\r\n*-7\r\n'), encode([['PING']]), b('*0\r\n')]);
    for (const sizes of [whole(bytes), fixedCuts(bytes.length, 1)]) {
      const run = runRequests(bytes, sizes);
      expect(run.frames.map((f) => [f.start, f.end, f.name])).toEqual([[14, 28, 'PING']]);
      expect(run.offset).toBe(bytes.length);
      expect(run.desynced).toBe(false);
    }
  });

  it('accepts the largest multibulk count Redis accepts and waits for the rest', () => {
    const run = runRequests(b('*2147483647\r\n$3\r\nSET\r\n'), [22]);
    expect(run.desynced).toBe(false);
    expect(run.frames).toEqual([]);
  });
});

describe('RequestFramer: invalid input', () => {
  const cases: [string, string, string][] = [
    ['*abc\r\n', 'invalid multibulk length', 'letters in the count'],
    ['*\r\n', 'invalid multibulk length', 'empty count'],
    ['*01\r\n$1\r\na\r\n', 'invalid multibulk length', 'leading zero'],
    ['*-0\r\n', 'invalid multibulk length', 'minus zero'],
    ['*+2\r\n', 'invalid multibulk length', 'plus sign'],
    ['*0002\r\n', 'invalid multibulk length', 'leading zeros'],
    ['*-9223372036854775809\r\n', 'invalid multibulk length', 'negative count below LLONG_MIN'],
    ['*-10000000000000000000\r\n', 'invalid multibulk length', 'negative count of 20 digits'],
    ['*-\r\n', 'invalid multibulk length', 'a minus alone'],
    ['*2147483648\r\n', 'invalid multibulk length', 'count above INT_MAX'],
    ['*1\r\nX', "expected '$'", 'no $'],
    ['*1\r\n$-1\r\n', 'invalid bulk length', 'negative bulk length'],
    ['*1\r\n$01\r\na\r\n', 'invalid bulk length', 'leading zero in bulk length'],
    ['*1\r\n$\r\n', 'invalid bulk length', 'empty bulk length'],
    ['*1\r\n$9007199254740992\r\n', 'invalid bulk length', 'past what a double counts exactly'],
    ['*1\r\n$1234567890123456789\r\n', 'invalid bulk length', 'bulk length of 19 digits'],
    ['*1\r\n$+4\r\nPING\r\n', 'invalid bulk length', 'plus sign in bulk length'],
    ['SET "a b\r\n', 'unbalanced quotes', 'unterminated double quote'],
    ["SET 'a\r\n", 'unbalanced quotes', 'unterminated single quote'],
    ['SET "a"b\r\n', 'unbalanced quotes', 'closing quote not followed by a blank'],
  ];

  it.each(cases)('%j: %s (%s)', (input, reason) => {
    const bad = b(input);
    const good = encode([['PING']]);
    const bytes = Buffer.concat([good, bad, good]);
    for (const sizes of [whole(bytes), fixedCuts(bytes.length, 1), randomCuts(bytes.length, 7)]) {
      const run = runRequests(bytes, sizes);
      expect(run.frames.map((f) => f.name)).toEqual(['PING']);
      expect(run.desyncs).toHaveLength(1);
      expect(run.desyncs[0]!.offset).toBe(good.length);
      expect(run.desyncs[0]!.reason).toContain(reason);
      expect(run.desynced).toBe(true);
      expect(run.unparsedBytes).toBe(bytes.length - good.length);
      expect(run.offset).toBe(bytes.length);
    }
  });

  it('honours maxBulkBytes', () => {
    const bytes = encode([['SET', 'k', 'x'.repeat(11)]]);
    expect(runRequests(bytes, whole(bytes), { maxBulkBytes: 10 }).desynced).toBe(true);
    expect(runRequests(bytes, whole(bytes), { maxBulkBytes: 11 }).frames).toHaveLength(1);
  });

  it('counts an argument over 512 MiB (a Redis with proto-max-bulk-len raised runs it) without holding it', () => {
    const framer = new RequestFramer({ frame: () => undefined });
    // 600 MiB announced, 1 MiB of it sent: the framer counts the bytes it skips, it keeps none.
    framer.push(Buffer.from(`*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$${600 * 1024 * 1024}\r\n`));
    framer.push(Buffer.alloc(1024 * 1024, 'x'));
    expect(framer.desynced).toBe(false);
    // Past what a double counts exactly it gives up.
    const tooLong = new RequestFramer({ frame: () => undefined });
    tooLong.push(Buffer.from(`*2\r\n$3\r\nGET\r\n$${2 ** 53}\r\n`));
    expect(tooLong.desynced).toBe(true);
  });

  it('frames an argument of 2 GiB or more whole, its head kept as for any other (a 32-bit length would wrap)', () => {
    const frames: { argc: number; bytes: number; head: number[] }[] = [];
    const framer = new RequestFramer({ frame: (f) => void frames.push({ argc: f.argc, bytes: f.end - f.start, head: f.head.map((b) => b.length) }) });
    const valueBytes = 2 ** 32 + 4;
    const announce = `*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$${valueBytes}\r\n`;
    framer.push(Buffer.from(announce));
    const chunk = Buffer.alloc(64 * 1024 * 1024, 'x');
    for (let left = valueBytes; left > 0; left -= chunk.length) framer.push(left >= chunk.length ? chunk : chunk.subarray(0, left));
    framer.push(Buffer.from('\r\n*1\r\n$4\r\nPING\r\n'));
    expect(frames).toEqual([
      { argc: 3, bytes: announce.length + valueBytes + 2, head: [3, 1, 64] },
      { argc: 1, bytes: 14, head: [4] },
    ]);
  });

  it('gives up on an inline line longer than 64 KiB, however it arrives', () => {
    const atLimit = b(`ECHO ${'x'.repeat(65536 - 6)}\r`);
    const over = b(`ECHO ${'x'.repeat(65536 - 5)}\r`);
    for (const line of [atLimit, over]) {
      const bytes = Buffer.concat([line, b('\n')]);
      for (const sizes of [whole(bytes), fixedCuts(bytes.length, 1000)]) {
        const run = runRequests(bytes, sizes);
        expect(run.desynced).toBe(line === over);
        expect(run.frames.length).toBe(line === over ? 0 : 1);
      }
    }
    const endless = Buffer.alloc(200_000, 'x');
    const run = runRequests(endless, fixedCuts(endless.length, 16384));
    expect(run.desyncs).toEqual([{ offset: 0, reason: expect.stringContaining('longer than 64 KiB') }]);
    expect(run.unparsedBytes).toBe(endless.length);
  });

  it('reports the desync once and counts every later byte as unparsed', () => {
    const reasons: string[] = [];
    const framer = new RequestFramer({ frame: () => {}, desync: (_o, r) => reasons.push(r) });
    framer.push(b('*1\r\n$4\r\nPING\r\n*x'));
    framer.push(b('more bytes'));
    framer.push(encode([['PING']]));
    expect(reasons).toHaveLength(1);
    expect(framer.desyncOffset).toBe(14);
    expect(framer.unparsedBytes).toBe(2 + 10 + 14);
    expect(framer.offset).toBe(14 + framer.unparsedBytes);
  });

  it('works without a desync callback', () => {
    const framer = new RequestFramer({ frame: () => {} });
    expect(() => framer.push(b('*x\r\n'))).not.toThrow();
    expect(framer.desynced).toBe(true);
  });
});

describe('RequestFramer: the frame object', () => {
  it('every framer\'s frame shares one head accessor (one hidden class across connections), and copies still carry head', () => {
    const frames: RequestFrame[] = [];
    for (let i = 0; i < 3; i++) new RequestFramer({ frame: (f) => void frames.push(f) }).push(b('*2\r\n$3\r\nGET\r\n$1\r\nk\r\n'));
    const accessors = frames.map((f) => Object.getOwnPropertyDescriptor(f, 'head')!);
    for (const a of accessors) {
      expect(a.get).toBe(accessors[0]!.get);
      expect(a.set).toBe(accessors[0]!.set);
      expect(a.enumerable).toBe(true);
    }
    expect(Object.keys(frames[0]!)).toEqual(Object.keys(frames[1]!));
    const copy = { ...frames[2]! };
    expect(copy.head.map((h) => h.toString())).toEqual(['GET', 'k']);
  });
});
