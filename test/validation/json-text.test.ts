/** parseJsonText: what a JSON file a user wrote may hold beyond JSON.parse, and where its errors are. */
import { describe, expect, it } from 'vitest';
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
});
