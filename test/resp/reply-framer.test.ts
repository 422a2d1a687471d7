import { describe, expect, it } from 'vitest';
import { ReplyFramer } from '../../src/resp/reply-framer.js';
import { fixedCuts, randomCuts, runReplies, withTypeChar } from './harness.js';

const b = (s: string) => Buffer.from(s, 'latin1');

/** Frames of `input` (type as a character), checked to be the same whole, byte by byte and split. */
function framesOf(input: string | Buffer) {
  const bytes = typeof input === 'string' ? b(input) : input;
  const whole = runReplies(bytes, [bytes.length]);
  for (const sizes of [fixedCuts(bytes.length, 1), randomCuts(bytes.length, 3)]) {
    expect(runReplies(bytes, sizes)).toEqual(whole);
  }
  expect(whole.desyncs).toEqual([]);
  expect(whole.offset).toBe(bytes.length);
  return whole.frames.map(withTypeChar);
}

describe('ReplyFramer: types', () => {
  it.each([
    ['+OK\r\n', { type: '+', simple: 'OK' }],
    ['-ERR unknown command\r\n', { type: '-', errorPrefix: 'ERR' }],
    [':-42\r\n', { type: ':' }],
    ['$5\r\nhello\r\n', { type: '$' }],
    ['$0\r\n\r\n', { type: '$' }],
    ['$-1\r\n', { type: '$' }],
    ['*-1\r\n', { type: '*', elements: -1 }],
    ['*0\r\n', { type: '*', elements: 0 }],
    ['_\r\n', { type: '_' }],
    ['#t\r\n', { type: '#' }],
    [',3.14\r\n', { type: ',' }],
    ['(12345678901234567890123\r\n', { type: '(' }],
    ['!10\r\nNOSCRIPT x\r\n', { type: '!', errorPrefix: 'NOSCRIPT' }],
    ['=8\r\ntxt:four\r\n', { type: '=' }],
    ['%1\r\n+a\r\n:1\r\n', { type: '%' }],
    ['~2\r\n+a\r\n+b\r\n', { type: '~' }],
    ['>2\r\n+pong\r\n$0\r\n\r\n', { type: '>', elements: 2, head: 'pong' }],
  ])('%j', (input, frame) => {
    const bytes = b(input);
    expect(framesOf(bytes)).toEqual([{ start: 0, end: bytes.length, ...frame }]);
  });

  it('reports head (lower case, short strings only) and lastInt for arrays and pushes', () => {
    const frames = framesOf(
      '*3\r\n$7\r\nMessage\r\n$2\r\nch\r\n:5\r\n' +
        `*2\r\n$33\r\n${'x'.repeat(33)}\r\n:1\r\n` +
        '*2\r\n:1\r\n$1\r\na\r\n' +
        '*2\r\n*1\r\n+inner\r\n:3\r\n' +
        '*1\r\n$-1\r\n',
    );
    expect(frames.map((f) => [f.elements, f.head, f.lastInt])).toEqual([
      [3, 'message', 5],
      [2, undefined, 1],
      [2, undefined, undefined],
      [2, undefined, 3],
      [1, undefined, undefined],
    ]);
  });

  it('keeps at most 33 bytes of a simple string: a long MONITOR line has no `simple`', () => {
    const line = `+1700000000.123456 [0 127.0.0.1:5000] "SET" "k" "${'v'.repeat(5000)}"\r\n`;
    expect(framesOf(line + '+QUEUED\r\n')).toEqual([
      { start: 0, end: line.length, type: '+' },
      { start: line.length, end: line.length + 9, type: '+', simple: 'QUEUED' },
    ]);
  });

  it('names errors by their first word, or ? when that is not a short printable code', () => {
    const frames = framesOf(
      '-WRONGTYPE Operation\r\n-MOVED 3999 127.0.0.1:6381\r\n-\r\n- x\r\n-\x01BAD x\r\n' +
        `-${'E'.repeat(33)} x\r\n-${'E'.repeat(32)}\r\n!3\r\nERR\r\n`,
    );
    expect(frames.map((f) => f.errorPrefix)).toEqual(['WRONGTYPE', 'MOVED', '?', '?', '?', '?', 'E'.repeat(32), 'ERR']);
  });
});

describe('ReplyFramer: structure', () => {
  it('nests aggregates to any depth without recursion', () => {
    const depth = 200_000;
    const bytes = Buffer.concat([Buffer.alloc(depth * 4, '*1\r\n'), b(':1\r\n+OK\r\n')]);
    const run = runReplies(bytes, fixedCuts(bytes.length, 65536));
    expect(run.frames.map(withTypeChar)).toEqual([
      { start: 0, end: depth * 4 + 4, type: '*', elements: 1 },
      { start: depth * 4 + 4, end: bytes.length, type: '+', simple: 'OK' },
    ]);
  });

  it('folds an attribute into the value after it; inside an aggregate it is not an element', () => {
    const attr = '|1\r\n+ttl\r\n:3600\r\n';
    expect(framesOf(`${attr}*2\r\n${attr}:1\r\n:2\r\n${attr}+OK\r\n`)).toEqual([
      { start: 0, end: 46, type: '*', elements: 2, lastInt: 2 },
      { start: 46, end: 68, type: '+', simple: 'OK' },
    ]);
  });

  it('frames streamed aggregates and strings, counting streamed elements', () => {
    expect(framesOf('*?\r\n:1\r\n*?\r\n.\r\n:3\r\n.\r\n$?\r\n;2\r\nab\r\n;0\r\n%?\r\n+a\r\n:1\r\n.\r\n')).toEqual([
      { start: 0, end: 22, type: '*', elements: 3, lastInt: 3 },
      { start: 22, end: 38, type: '$' },
      { start: 38, end: 53, type: '%' },
    ]);
  });

  it('skips a 16 MiB bulk reply by counting, without copying it', () => {
    const size = 16 * 1024 * 1024;
    const chunk = Buffer.alloc(65536, 'v');
    const frames: number[] = [];
    const framer = new ReplyFramer({ frame: (f) => frames.push(f.end) });
    const before = process.memoryUsage().arrayBuffers;
    framer.push(b(`$${size}\r\n`));
    for (let i = 0; i < size / chunk.length; i++) framer.push(chunk);
    framer.push(b('\r\n+OK\r\n'));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 * 1024 * 1024);
    expect(frames).toEqual([size + 13, size + 18]);
  });
});

describe('ReplyFramer: invalid input', () => {
  it.each([
    ['X\r\n', 'unknown type byte'],
    ['$abc\r\n', 'invalid number'],
    ['$-2\r\n', 'invalid length'],
    ['%-1\r\n', 'invalid length'],
    ['*?1\r\n', 'invalid length'],
    ['!?\r\n', 'only $ may be streamed'],
    ['.\r\n', 'unexpected end marker'],
    ['*1\r\n.\r\n', 'unexpected end marker'],
    ['_x\r\n', 'invalid null'],
    ['#x\r\n', 'invalid boolean'],
    [':\r\n', 'invalid integer'],
    [':12a\r\n', 'invalid number'],
    ['+OK\rX', 'expected LF'],
    ['$2\r\nabc\r\n', 'expected CR after blob'],
    ['$2\r\nab\rX', 'expected LF after blob'],
    ['$?\r\nX', 'expected ;'],
    ['*2\r\n:1\r\n?\r\n', 'unknown type byte'],
  ])('%j: %s', (input, reason) => {
    const good = '|1\r\n+a\r\n+b\r\n+OK\r\n';
    const bytes = b(good + input + '+OK\r\n');
    for (const sizes of [[bytes.length], fixedCuts(bytes.length, 1)]) {
      const run = runReplies(bytes, sizes);
      expect(run.frames).toHaveLength(1);
      expect(run.desyncs).toHaveLength(1);
      expect(run.desyncs[0]!.offset).toBe(good.length);
      expect(run.desyncs[0]!.reason).toContain(reason);
      expect(run.unparsedBytes).toBe(bytes.length - good.length);
      expect(run.offset).toBe(bytes.length);
    }
  });

  it('counts bytes pushed after a desync as unparsed, and never throws', () => {
    const framer = new ReplyFramer({ frame: () => {} });
    framer.push(b('+OK\r\n|1\r\n+a\r\nZ'));
    expect(() => framer.push(b('anything'))).not.toThrow();
    expect(framer.desyncOffset).toBe(5);
    expect(framer.unparsedBytes).toBe(9 + 8);
  });
});
