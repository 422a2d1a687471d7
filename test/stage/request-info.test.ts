import { describe, expect, it } from 'vitest';
import { buildRequestInfo, requestArgs } from '../../src/stage/request-info.js';

/**
 * What a frame stage sees of an inline request is what Redis executes: a toxic's `keys` glob and
 * `commands` match `GET "e:1"` as Redis reads it (the key e:1), not the quoted text.
 */
describe('requestArgs / buildRequestInfo: inline lines as Redis splits them', () => {
  const args = (line: string): string[] => requestArgs(Buffer.from(line, 'latin1'), true).map((b) => b.toString('latin1'));

  it('decodes quotes and escapes, and splits on blanks only outside quotes', () => {
    expect(args('GET "e:1"\r\n')).toEqual(['GET', 'e:1']);
    expect(args("SET 'a b' \"c\\x41\\n\"\r\n")).toEqual(['SET', 'a b', 'cA\n']);
    expect(args('  get\te:7   \n')).toEqual(['get', 'e:7']);
    expect(args('"GET" ""\r\n')).toEqual(['GET', '']);
  });

  it('gives the stage the decoded name and first key', () => {
    const info = buildRequestInfo(0, Buffer.from('"get" "e:\\x31"\r\n', 'latin1'), true, 'GET', false);
    expect(info.name).toBe('GET');
    expect(info.firstKey?.toString()).toBe('e:1');
  });
});
