/** parseJsonText: what a JSON file a user wrote may hold beyond JSON.parse, and where its errors are. */
import { describe, expect, it } from 'vitest';
import { scanJson } from '../../src/validation/json-scan.js';
import { parseJsonText } from '../../src/validation/json-text.js';

describe('parseJsonText', () => {
  it('skips a UTF-8 byte order mark at the start, and only there', () => {
    expect(parseJsonText('\ufeff{"upstream": "127.0.0.1:6379"}')).toEqual({ upstream: '127.0.0.1:6379' });
    expect(parseJsonText('"\ufeff"')).toBe('\ufeff');
    expect(() => parseJsonText('{}\ufeff')).toThrow(SyntaxError);
  });

  it('says the line and column of a syntax error, the same on every Node', () => {
    const text = '{\n  "a": 1\n  "b": 2\n}';
    expect(() => parseJsonText(text)).toThrow(/ at position 13 \(line 3 column 3\)$/);
    expect(() => parseJsonText(`\ufeff${text}`)).toThrow(/ at position 13 \(line 3 column 3\)$/);
    expect(() => parseJsonText('{"a":1,}')).toThrow(/ at position 7 \(line 1 column 8\)$/);
    // Nothing to place: the message as JSON.parse gave it.
    expect(() => parseJsonText('')).toThrow(/^Unexpected end of JSON input$/);
  });

  it("places an unexpected token too, which JSON.parse shows as a snippet with the file's line breaks in it", () => {
    const cases: [string, string][] = [
      ['{\n  "a": 1,\n  "b": True\n}', "Unexpected token 'T' in JSON at position 19 (line 3 column 8)"],
      ["{\"a\": 'x'}", "Unexpected token ''' in JSON at position 6 (line 1 column 7)"],
      ['{"a": tru}', "Unexpected token '}' in JSON at position 9 (line 1 column 10)"],
      ['{"a": [1,\n]}', "Unexpected token ']' in JSON at position 10 (line 2 column 1)"],
      ['{"a": "x",\n "b": undefined}', "Unexpected token 'u' in JSON at position 17 (line 2 column 7)"],
      ['{"a": }', "Unexpected token '}' in JSON at position 6 (line 1 column 7)"],
      ['[1e5, -0.5, "\\u00e9\\n", NaN]', "Unexpected token 'N' in JSON at position 24 (line 1 column 25)"],
    ];
    for (const [text, message] of cases) expect(() => parseJsonText(text), text).toThrow(new SyntaxError(message));
  });

  it('says a UTF-16 file is UTF-16 (PowerShell 5 writes one with >), where JSON.parse said an unexpected token', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"upstream": "127.0.0.1:6379"}\n', 'utf16le')]);
    expect(() => parseJsonText(utf16.toString('utf8'))).toThrow(new SyntaxError("the file is UTF-16 (as PowerShell 5's > writes one), not UTF-8: save it as UTF-8"));
  });

  it('finds nothing in JSON with each key once: the scan takes all JSON.parse takes', () => {
    const valid = ['{"a": [1, -0, 2.5e-3, 1E+2, true, false, null, {}], "b\\u00e9\\"": "\\t\\/", "c": {"a": 1}}', ' [ ] ', '0', '"x"'];
    for (const text of valid) expect([JSON.parse(text) !== undefined, scanJson(text)], text).toEqual([true, undefined]);
    expect(scanJson('{"a": 1')).toEqual({ kind: 'not-json', at: 7 });
    // Deeper than the scan's stack: JSON.parse's value (a RangeError came out of the scan).
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    expect(Array.isArray(parseJsonText(deep))).toBe(true);
  });

  it('refuses a key given twice in one object, which JSON.parse takes silently (the first one dropped)', () => {
    const text = '{\n  "upstream": "127.0.0.1:6379",\n  "link": {"rttUs": 2000},\n  "link": {"jitterUs": 100}\n}';
    expect(JSON.parse(text)).toEqual({ upstream: '127.0.0.1:6379', link: { jitterUs: 100 } });
    expect(() => parseJsonText(text)).toThrow(new SyntaxError('Duplicate key "link" in JSON at position 63 (line 4 column 3)'));
    // Decoded as JSON.parse decodes it: "\u006cink" is "link"; in another object the same key is no repeat.
    expect(scanJson('[{"link": 1, "\\u006cink": 2}]')).toEqual({ kind: 'duplicate-key', key: 'link', at: 13 });
    expect(parseJsonText('[{"a": {"a": 1}}, {"a": 2}]')).toEqual([{ a: { a: 1 } }, { a: 2 }]);
  });
});
