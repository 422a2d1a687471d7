import { describe, expect, it } from 'vitest';
import { RequestFramer } from '../../src/resp/request-framer.js';
import { CommandKind } from '../../src/resp/command-kind.js';
import { RequestModes } from '../../src/resp/request-modes.js';

/**
 * Requests Redis reads as nothing (a blank inline line, `*0`, `*-1`) get no frame and no reply,
 * but Redis resets the client after each, which ends a CLIENT REPLY SKIP: the framer reports them
 * so the request modes can follow.
 */
describe('empty requests', () => {
  it('are reported in stream order, whatever the cuts', () => {
    const bytes = Buffer.from('\r\n*0\r\nPING\r\n   \r\n*-1\r\n*1\r\n$4\r\nPING\r\n\n*-7\r\n', 'latin1');
    for (const step of [bytes.length, 1, 2, 5]) {
      const seen: string[] = [];
      const framer = new RequestFramer({ frame: (f) => seen.push(`frame@${f.end}`), empty: () => seen.push('empty') });
      for (let i = 0; i < bytes.length; i += step) framer.push(bytes.subarray(i, i + step));
      expect(seen).toEqual(['empty', 'empty', 'frame@12', 'empty', 'empty', 'frame@36', 'empty', 'empty']);
    }
  });

  it('include every negative count Redis reads (string2ll: 19 digits, down to LLONG_MIN)', () => {
    const bytes = Buffer.from('*-1234567890123456789\r\n*-9223372036854775808\r\nPING\r\n*-999999999999999999\r\n', 'latin1');
    for (const step of [bytes.length, 1, 7]) {
      const seen: string[] = [];
      const framer = new RequestFramer({ frame: (f) => seen.push(`frame@${f.end}`), empty: () => seen.push('empty') });
      for (let i = 0; i < bytes.length; i += step) framer.push(bytes.subarray(i, i + step));
      expect(seen).toEqual(['empty', 'empty', 'frame@52', 'empty']);
      expect(framer.desynced).toBe(false);
    }
  });

  it('end a pending CLIENT REPLY SKIP, as the command after it would', () => {
    const m = new RequestModes();
    m.admit(CommandKind.ClientReplySkip, 3);
    m.empty();
    expect(m.admit(CommandKind.Normal, 1)).toBe(1);
    m.admit(CommandKind.ClientReplyOff, 3);
    m.empty();
    expect(m.admit(CommandKind.Normal, 1)).toBe(0); // OFF stays
  });
});
