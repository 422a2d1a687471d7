import { describe, expect, it } from 'vitest';
import { ReplyFramer } from '../../src/resp/reply-framer.js';

describe('ReplyFramer.skip: stepping over frames someone else framed', () => {
  it('keeps the offsets of the whole stream, and is allowed only between frames', () => {
    const seen: [number, number][] = [];
    const f = new ReplyFramer({ frame: (r) => seen.push([r.start, r.end]) });
    f.push(Buffer.from('+OK\r\n'));
    expect(f.atFrameBoundary).toBe(true);
    f.skip(7); // `:1234\r\n`, framed elsewhere
    f.push(Buffer.from('*2\r\n:1\r\n'));
    expect(f.atFrameBoundary).toBe(false); // inside the array
    f.push(Buffer.from(':2\r\n'));
    expect(f.atFrameBoundary).toBe(true);
    expect(seen).toEqual([
      [0, 5],
      [12, 24],
    ]);
    expect(f.offset).toBe(24);
  });
});
