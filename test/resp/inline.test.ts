import { describe, expect, it } from 'vitest';
import { fixedCuts, runRequests } from './harness.js';

/** Inline commands, split the way redis-server's sdssplitargs() splits them. */
const cases: [string, string[]][] = [
  ['PING\r\n', ['PING']],
  ['PING\n', ['PING']],
  ['SET a b\r\n', ['SET', 'a', 'b']],
  ['  SET   a \t b  \r\n', ['SET', 'a', 'b']],
  [`SET "a b" 'c d'\r\n`, ['SET', 'a b', 'c d']],
  ['ECHO "\\x41\\x4a\\n\\r\\t\\b\\a\\\\\\""\r\n', ['ECHO', 'AJ\n\r\t\b\x07\\"']],
  ['ECHO "\\xZZ"\r\n', ['ECHO', 'xZZ']],
  ['ECHO "\\x4"\r\n', ['ECHO', 'x4']],
  [`ECHO 'it\\'s' 'a\\nb'\r\n`, ['ECHO', "it's", 'a\\nb']],
  ['ECHO a"b c"\r\n', ['ECHO', 'ab c']],
  ['ECHO ""\r\n', ['ECHO', '']],
  ['ECHO a\x0bb\r\n', ['ECHO', 'a\x0bb']],
  ['GET a\rb\r\n', ['GET', 'a', 'b']],
  ['GET a\r\r\n', ['GET', 'a']],
  ['"SET" k v\r\n', ['SET', 'k', 'v']],
  ['config get maxmemory\r\n', ['config', 'get', 'maxmemory']],
];

describe('RequestFramer: inline commands', () => {
  it.each(cases)('%j', (line, args) => {
    const bytes = Buffer.from(line, 'latin1');
    for (const sizes of [[bytes.length], fixedCuts(bytes.length, 1)]) {
      const run = runRequests(bytes, sizes, { headArgs: 5, argSizes: true });
      expect(run.desynced).toBe(false);
      expect(run.frames).toHaveLength(1);
      const f = run.frames[0]!;
      expect(f).toMatchObject({ start: 0, end: bytes.length, inline: true, argc: args.length });
      expect(f.head).toEqual(args);
      expect(f.argSizes).toEqual(args.map((a) => Buffer.byteLength(a, 'latin1')));
    }
  });

  // redis-server 7.0 finds an inline line's end with strchr(), which stops at a NUL: it never reads
  // that line or any request after it (it answers nothing, then closes once 64 KiB more came).
  it.each(['ECHO a\x00 b c\r\nPING\r\n', ' \x00 junk\r\nPING\r\n', '\x00\r\n'])(
    'stops at an inline line holding a NUL, as Redis does: %j',
    (text) => {
      const bytes = Buffer.from(`PING\r\n${text}`, 'latin1');
      for (const sizes of [[bytes.length], fixedCuts(bytes.length, 1), fixedCuts(bytes.length, 7)]) {
        const run = runRequests(bytes, sizes);
        expect(run.frames.map((f) => [f.start, f.end, f.name])).toEqual([[0, 6, 'PING']]);
        expect(run.desyncs.map((d) => d.offset)).toEqual([6]);
        expect(run.unparsedBytes).toBe(bytes.length - 6);
      }
    },
  );

  it('names inline commands like multibulk ones', () => {
    const bytes = Buffer.from('client Tracking on\r\njson.get x\r\nGET\r\n', 'latin1');
    expect(runRequests(bytes, [bytes.length]).frames.map((f) => f.name)).toEqual(['CLIENT TRACKING', 'JSON.GET', 'GET']);
  });

  it('ignores blank lines (Redis does) but counts their bytes', () => {
    const bytes = Buffer.from('\r\n\n   \r\n\t\r\nPING\r\n \x0b \r\n', 'latin1');
    const run = runRequests(bytes, fixedCuts(bytes.length, 3));
    expect(run.frames.map((f) => [f.start, f.end, f.name])).toEqual([[11, 17, 'PING']]);
    expect(run.offset).toBe(bytes.length);
    expect(run.desynced).toBe(false);
  });

  it('treats any first byte other than * as the start of an inline command, as Redis does', () => {
    const bytes = Buffer.from('$3\r\n+OK\r\n', 'latin1');
    expect(runRequests(bytes, [bytes.length]).frames.map((f) => [f.argc, f.name])).toEqual([[1, '?'], [1, '?']]);
  });

  it('mixes with multibulk requests in one chunk', () => {
    const bytes = Buffer.from('PING\r\n*1\r\n$4\r\nPING\r\nPING\n', 'latin1');
    expect(runRequests(bytes, [bytes.length]).frames.map((f) => [f.start, f.end, f.inline]))
      .toEqual([[0, 6, true], [6, 20, false], [20, 25, true]]);
  });
});
