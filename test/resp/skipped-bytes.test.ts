import { describe, expect, it } from 'vitest';
import { fixedCuts, randomCuts, runRequests } from './harness.js';

/**
 * redis-server 7.0 (processMultibulkBuffer) finds a header's end by its CR and skips the next byte
 * unread, and skips the two bytes after an argument's data unread: it executes every request below
 * (checked against 7.0.15: PING and ECHO answered). The framer must frame them too, not desync.
 */
const requests: [string, string, number][] = [
  ['*1\rX$4\r\nPING\r\n', 'PING', 1],
  ['*1\r\n$4\r\nPINGxx', 'PING', 1],
  ['*2\r\n$4\r\nECHO\r\n$1\rzz\r\n', 'ECHO', 2],
  ['*2\r\n$4\r\nECHO\n\n$0\r\n\r\r', 'ECHO', 2],
  ['*1\r\n$4\r\nPING\r\n', 'PING', 1],
];

describe('RequestFramer: the bytes Redis skips unread after a CR and after argument data', () => {
  const bytes = Buffer.from(requests.map(([r]) => r).join(''), 'latin1');
  const want = requests.reduce<{ at: number; frames: [number, number, string, number][] }>(
    (acc, [r, name, argc]) => ({ at: acc.at + r.length, frames: [...acc.frames, [acc.at, acc.at + r.length, name, argc]] }),
    { at: 0, frames: [] },
  ).frames;

  it.each([
    ['whole', [bytes.length]],
    ['byte by byte', fixedCuts(bytes.length, 1)],
    ['random splits', randomCuts(bytes.length, 3)],
  ])('frames every request Redis executes: %s', (_plan, sizes) => {
    const run = runRequests(bytes, sizes);
    expect(run.desyncs).toEqual([]);
    expect(run.frames.map((f) => [f.start, f.end, f.name, f.argc])).toEqual(want);
    expect(run.offset).toBe(bytes.length);
  });

  it('still desyncs where Redis refuses: a header byte that is not a digit', () => {
    const bad = Buffer.from('*1\r\n$4\r\nPING\r\n*2\r\n$4XYECHO\r\n$1\r\nz\r\n', 'latin1');
    const run = runRequests(bad, [bad.length]);
    expect(run.frames.map((f) => f.name)).toEqual(['PING']);
    expect(run.desyncs.map((d) => d.offset)).toEqual([14]);
  });
});
