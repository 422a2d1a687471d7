import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { CommandEvent, TapEvent } from '../../src/stats/types.js';
import { encodeEnd, encodeEvent, encodeHeader, encodeLinkChange, encodeTruncated, safeName } from '../../src/record/trace-format.js';
import { parseTrace, readTrace, TraceFormatError } from '../../src/record/trace-reader.js';
import { LOCAL_LINK } from './synthetic.js';

const T0 = 1_000_000;
const header = encodeHeader(new Date('2025-01-01T00:00:00Z'), 'hashed', LOCAL_LINK, 'redis-rtt test');

function cmd(over: Partial<CommandEvent> = {}): CommandEvent {
  return {
    type: 'command', conn: 3, name: 'GET', argc: 2, argSizes: [3, 8], keyHash: '0123456789abcdef', bytesUp: 27, bytesDown: 11,
    arrivedUs: T0 + 1520.34, sentUs: T0 + 1521.2, firstReplyUs: T0 + 1568.55, deliveredUs: T0 + 1581.9, reply: '$', roundTrip: 7, ...over,
  };
}

function text(events: TapEvent[], keys: 'none' | 'hashed' = 'hashed'): string {
  return [header, ...events.map((e) => encodeEvent(e, T0, keys)), encodeEnd({ atUs: 9000, events: events.length, dropped: 0, bytes: 1 })].join('\n') + '\n';
}

describe('trace format', () => {
  it('round-trips every event type with times relative to the trace start at 0.1 us', () => {
    const events: TapEvent[] = [
      { type: 'open', conn: 3, atUs: T0 + 812.44, client: '127.0.0.1:52144' },
      { type: 'tls', conn: 3, atUs: T0 + 1200.04, version: 'TLSv1.2', resumed: true },
      cmd(),
      cmd({ name: 'HGET', errorPrefix: 'WRONGTYPE', reply: '-', blocking: true, roundTrip: 8, firstReplyUs: undefined, deliveredUs: undefined, unsent: true }),
      { type: 'push', conn: 3, atUs: T0 + 9120.5, bytes: 52, kind: 'message' },
      { type: 'close', conn: 3, atUs: T0 + 90210 },
    ];
    const trace = parseTrace(text(events), 'x');
    expect(trace.header).toMatchObject({ format: 'redis-rtt-trace', version: 1, keys: 'hashed', link: LOCAL_LINK, tool: 'redis-rtt test' });
    expect(trace.warnings).toEqual([]);
    expect(trace.end).toBeDefined();
    const [open, tls, get, hget, push, close] = trace.events;
    expect(open).toEqual({ type: 'open', conn: 3, atUs: 812.4, client: '127.0.0.1:52144' });
    expect(tls).toEqual({ type: 'tls', conn: 3, atUs: 1200, version: 'TLSv1.2', resumed: true });
    expect(get).toMatchObject({ type: 'command', conn: 3, name: 'GET', argc: 2, argSizes: [3, 8], keyHash: '0123456789abcdef', bytesUp: 27, bytesDown: 11, reply: '$', roundTrip: 7 });
    const g = get as CommandEvent;
    expect(g.arrivedUs).toBeCloseTo(1520.3, 6);
    expect(g.sentUs).toBeCloseTo(1520.3 + 0.9, 6);
    expect(g.firstReplyUs).toBeCloseTo(1520.3 + 48.2, 6);
    expect(g.deliveredUs).toBeCloseTo(1520.3 + 61.6, 6);
    expect(hget).toMatchObject({ name: 'HGET', errorPrefix: 'WRONGTYPE', reply: '-', blocking: true, unsent: true, roundTrip: 8 });
    expect((hget as CommandEvent).deliveredUs).toBeUndefined();
    expect(push).toEqual({ type: 'push', conn: 3, atUs: 9120.5, bytes: 52, kind: 'message' });
    expect(close).toEqual({ type: 'close', conn: 3, atUs: 90210 });
  });

  it('keeps link changes and trailers apart from events', () => {
    const t = parseTrace(
      [header, encodeLinkChange(500, { ...LOCAL_LINK, upUs: 10000, downUs: 10000 }), encodeTruncated({ atUs: 600, bytes: 4096, reason: 'max-bytes' }), encodeEnd({ atUs: 700, events: 0, dropped: 5, bytes: 4200 })].join('\n') + '\n',
    );
    expect(t.events).toEqual([]);
    expect(t.links).toEqual([{ atUs: 500, link: { ...LOCAL_LINK, upUs: 10000, downUs: 10000 } }]);
    expect(t.truncation).toEqual({ atUs: 600, bytes: 4096, reason: 'max-bytes' });
    expect(t.end).toMatchObject({ dropped: 5 });
  });

  it('never writes key hashes without --record-keys hashed, nor sizes or keys of credential commands', () => {
    expect(encodeEvent(cmd(), T0, 'none')).not.toContain('"k"');
    for (const name of ['AUTH', 'HELLO', 'ACL SETUSER', 'CONFIG SET', 'MIGRATE']) {
      const line = encodeEvent(cmd({ name, argSizes: [4, 7, 13] }), T0, 'hashed');
      expect(line).not.toContain('"as"');
      expect(line).not.toContain('"k"');
    }
  });

  it('hides anything that does not look like a command name, error prefix or address', () => {
    expect(safeName('get')).toBe('GET');
    expect(safeName('CLIENT SETINFO')).toBe('CLIENT SETINFO');
    expect(safeName('CLIENT ?')).toBe('CLIENT ?');
    expect(safeName('?')).toBe('?');
    expect(safeName('secret value with spaces')).toBe('(other)');
    expect(safeName('{"x":1}')).toBe('(other)');
    expect(safeName('FT.SEARCH')).toBe('FT.SEARCH');
    // A password typed at a redis-cli prompt becomes a "command" the tap learns: never written.
    expect(safeName('HUNTER2')).toBe('(other)');
    expect(safeName('GETT')).toBe('(other)');
    const line = encodeEvent(cmd({ errorPrefix: 'ERR bad "thing"', reply: '\n' }), T0, 'none')!;
    expect(line).not.toContain('thing');
    expect(JSON.parse(line).r).toBe('?');
    expect(encodeEvent({ type: 'open', conn: 1, atUs: T0, client: 'a b"c' }, T0, 'none')).toBe('{"type":"open","c":1,"t":0}');
  });

  it('writes exactly what JSON.stringify would, field for field', () => {
    const variants: CommandEvent[] = [
      cmd(),
      cmd({ argSizes: undefined, keyHash: undefined, firstReplyUs: undefined, deliveredUs: undefined, reply: 'none', unsent: true }),
      cmd({ name: 'BLPOP', blocking: true, errorPrefix: 'ERR', reply: '-', argSizes: [5, 1, 1, 1, 1] }),
    ];
    for (const e of variants) {
      const line = encodeEvent(e, T0, 'hashed')!;
      expect(JSON.stringify(JSON.parse(line))).toBe(line);
    }
  });

  it('skips events with a time or size that is not a number rather than write a line the reader rejects', () => {
    expect(encodeEvent(cmd({ arrivedUs: NaN }), T0, 'none')).toBeUndefined();
    expect(encodeEvent(cmd({ argSizes: [1, Infinity] }), T0, 'none')).toBeUndefined();
    expect(encodeEvent({ type: 'push', conn: 1, atUs: NaN, bytes: 1, kind: 'message' }, T0, 'none')).toBeUndefined();
    expect(encodeEvent({ type: 'close', conn: 1, atUs: NaN }, T0, 'none')).toBeUndefined();
  });

  it('writes a tls line with the version, and resumed only when it was', () => {
    expect(encodeEvent({ type: 'tls', conn: 2, atUs: T0 + 5, version: 'TLSv1.3', resumed: false }, T0, 'none')).toBe('{"type":"tls","c":2,"t":5,"v":"TLSv1.3"}');
    expect(encodeEvent({ type: 'tls', conn: 2, atUs: T0 + 5, version: 'TLS"1', resumed: true }, T0, 'none')).toBe('{"type":"tls","c":2,"t":5,"v":"?","resumed":1}');
  });

  it('ignores line types it does not know (new types can be added within version 1)', () => {
    const t = parseTrace(`${header}\n{"type":"future-thing","x":1}\n${encodeEvent(cmd(), T0, 'hashed')}\n`);
    expect(t.events).toHaveLength(1);
  });
});

describe('trace reader errors', () => {
  const bad = (content: string) => {
    try {
      parseTrace(content, 'bad.trace');
    } catch (err) {
      expect(err).toBeInstanceOf(TraceFormatError);
      return (err as TraceFormatError).message;
    }
    throw new Error('expected a TraceFormatError');
  };

  it('names the file and the line', () => {
    expect(bad('')).toBe('bad.trace: empty file: not a redis-rtt trace');
    expect(bad('hello\n')).toBe('bad.trace:1: not a redis-rtt trace (line 1 is not JSON)');
    // analyze --json's own output (or a bench result) given back to analyze: it was only "line 1 is not JSON".
    expect(bad('{\n  "trace": {}\n}\n')).toBe('bad.trace:1: not a redis-rtt trace (line 1 is not JSON: a JSON document, as bench, calibrate and analyze --json write, not a trace)');
    expect(bad('{"type":"cmd"}\n')).toMatch(/^bad\.trace:1: not a redis-rtt trace \(line 1 must be/);
    expect(bad(header.replace('"version":1', '"version":2') + '\n')).toBe('bad.trace:1: trace version 2 is not supported (this redis-rtt reads version 1)');
    expect(bad(header.replace('"keys":"hashed"', '"keys":"plain"') + '\n')).toBe('bad.trace:1: "keys" must be "none" or "hashed"');
    // A link below 0 in the header or a link line is no link the proxy ran: "recorded link RTT -100us" before.
    expect(bad(header.replace('"upUs":0', '"upUs":-100') + '\n')).toBe('bad.trace:1: "upUs" must be 0 or more');
    expect(bad(`${header}\n${encodeLinkChange(5, { ...LOCAL_LINK, downUs: -1 })}\n`)).toBe('bad.trace:2: "downUs" must be 0 or more');
    expect(bad(`${header}\n${encodeEvent(cmd(), T0, 'none')}\n{"type":"cmd","c":1}\n`)).toBe('bad.trace:3: "t" must be a number');
    expect(bad(`${header}\n\n{not json}\n{"type":"open","c":1,"t":0}\n`)).toBe('bad.trace:3: not valid JSON');
    expect(bad(`${header}\n[1,2]\n`)).toBe('bad.trace:2: expected a JSON object');
    expect(bad(`${header}\n{"type":"cmd","t":5,"c":1.5,"n":"GET"}\n`)).toBe('bad.trace:2: "c" must be a whole number');
    // Counts below 0: a round trip -1 grouped every such request into one round trip, sorted first.
    expect(bad(`${header}\n${encodeEvent(cmd({ roundTrip: -1 }), T0, 'none')}\n`)).toBe('bad.trace:2: "rt" must be 0 or more');
    expect(bad(`${header}\n${encodeEvent(cmd({ bytesDown: -5 }), T0, 'none')}\n`)).toBe('bad.trace:2: "down" must be 0 or more');
    expect(bad(`${header}\n{"type":"push","c":-2,"t":1,"bytes":9,"kind":"message"}\n`)).toBe('bad.trace:2: "c" must be 0 or more');
    expect(parseTrace(`${header}\n${encodeEvent(cmd({ roundTrip: 0, reply: 'none' }), T0, 'none')}\n`).events).toHaveLength(1);
  });

  it('refuses two traces in one file: a second header, or any line after the end line', () => {
    // `cat a.trace b.trace > all.trace` read as one session: b's times restart at 0 and its connection ids
    // repeat a's, so one connection "waited" 54.9 s in a 3.5 s wall, without a word.
    const end = encodeEnd({ atUs: T0 + 5000, events: 1, dropped: 0, bytes: 100 });
    const one = `${header}\n${encodeEvent(cmd(), T0, 'none')}\n${end}\n`;
    expect(bad(one + one)).toBe('bad.trace:4: a second header: two traces in one file (each --record writes its own; analyze them one by one)');
    expect(bad(`${header}\n${encodeEvent(cmd(), T0, 'none')}\n${header}\n`)).toMatch(/^bad\.trace:3: a second header/);
    expect(bad(`${one}${encodeEvent(cmd(), T0, 'none')}\n`)).toBe('bad.trace:4: a line after the end line (the recorder writes nothing after it)');
    // Blank lines after the end are harmless.
    expect(parseTrace(`${one}\n\n`).end).toBeDefined();
  });

  it('drops a cut-off last line with a warning, and notes a missing end line', () => {
    const t = parseTrace(`${header}\n${encodeEvent(cmd(), T0, 'none')}\n{"type":"cmd","c":3,"rt`);
    expect(t.events).toHaveLength(1);
    expect(t.end).toBeUndefined();
    expect(t.warnings).toEqual([
      'line 3: incomplete last line ignored (the recording was cut off)',
      'no end line: the trace is still being written, or its proxy stopped without closing it (killed); the last requests may be missing',
    ]);
  });
});

describe('reading a trace without argument sizes (what analyze reads)', () => {
  // The sizes were deleted from each event after decoding: V8 then keeps every event as a dictionary, about
  // 900 bytes where a plain one takes 200, and analyze of a 256mb trace (the --record-max-bytes default)
  // ran out of a 2 GB heap (a machine of 8 GB) and aborted.
  it('leaves them off as it decodes, so each event stays a plain object, and still checks them', async () => {
    setFlagsFromString('--allow-natives-syntax');
    const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
    const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-trace-'));
    try {
      const path = join(dir, 'app.trace');
      writeFileSync(path, text([cmd(), cmd({ roundTrip: 8 })]));
      const [get] = (await readTrace(path, { argSizes: false })).events;
      expect(get).toMatchObject({ type: 'command', name: 'GET', roundTrip: 7 });
      expect(get).not.toHaveProperty('argSizes');
      expect(hasFastProperties(get!)).toBe(true);
      expect((await readTrace(path)).events[0]).toMatchObject({ argSizes: [3, 8] });
      writeFileSync(path, text([cmd()]).replace('"as":[3,8]', '"as":"3,8"'));
      await expect(readTrace(path, { argSizes: false })).rejects.toThrow(/app\.trace:2: "as" must be an array of numbers/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
