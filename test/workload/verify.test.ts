import { describe, expect, it } from 'vitest';
import { VerificationError } from '../../src/errors.js';
import { buildWorkloadData } from '../../src/workload/keys.js';
import { verifyReplies } from '../../src/workload/verify.js';

const N = 10;
const counting = (): number[] => Array.from({ length: N }, (_, i) => i + 1);
const incr = buildWorkloadData('incr', N, 16, 't:', 1);

function failure(fn: () => void): VerificationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(VerificationError);
    return err as VerificationError;
  }
  throw new Error('expected a VerificationError');
}

describe('verifyReplies', () => {
  it('accepts exactly 1..N for incr', () => {
    expect(() => verifyReplies('incr', counting(), incr, N)).not.toThrow();
  });

  it('catches a dropped INCR reply at the first shifted command', () => {
    // Reply 5 lost: command 5 receives 6, ..., the last command receives nothing.
    const replies = [1, 2, 3, 4, 6, 7, 8, 9, 10];
    const err = failure(() => verifyReplies('incr', replies, incr, N));
    expect(err.message).toBe('command 5 of 10: INCR returned 6, expected 5');
    expect(err.commandIndex).toBe(5);
  });

  it('catches a duplicated INCR reply', () => {
    const replies = [1, 2, 3, 4, 5, 5, 6, 7, 8, 9];
    expect(failure(() => verifyReplies('incr', replies, incr, N)).message).toBe('command 6 of 10: INCR returned 5, expected 6');
  });

  it('reports an error reply with its index and the server message', () => {
    const replies: unknown[] = counting();
    replies[2] = new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
    expect(failure(() => verifyReplies('incr', replies, incr, N)).message).toBe(
      'command 3 of 10: WRONGTYPE Operation against a key holding the wrong kind of value',
    );
  });

  it('reports missing and surplus replies', () => {
    expect(failure(() => verifyReplies('incr', counting().slice(0, 9), incr, N)).message).toBe('command 10 of 10: no reply');
    expect(failure(() => verifyReplies('incr', [...counting(), 11], incr, N)).message).toMatch(/1 more replies than the 10 commands/);
  });

  it('checks SET replies are OK', () => {
    const set = buildWorkloadData('set', N, 16, 't:', 1);
    const replies: unknown[] = Array.from({ length: N }, () => 'OK');
    expect(() => verifyReplies('set', replies, set, N)).not.toThrow();
    replies[7] = null;
    expect(failure(() => verifyReplies('set', replies, set, N)).message).toBe('command 8 of 10: SET returned nil, expected OK');
  });

  it('checks GET values byte for byte', () => {
    const get = buildWorkloadData('get', N, 64, 't:', 7);
    const replies = get.values.map((v) => Buffer.from(v));
    expect(() => verifyReplies('get', replies, get, N)).not.toThrow();
    const flipped = replies[4] as Buffer;
    flipped[40] = (flipped[40] as number) ^ 1;
    expect(failure(() => verifyReplies('get', replies, get, N)).message).toMatch(/^command 5 of 10: GET returned 64 bytes/);
    // A value belonging to another key is wrong too (values are stamped with their index).
    const swapped = get.values.map((v) => Buffer.from(v));
    swapped[1] = Buffer.from(get.values[2] as Buffer);
    expect(failure(() => verifyReplies('get', swapped, get, N)).commandIndex).toBe(2);
  });
});

describe('buildWorkloadData', () => {
  it('makes seeded, distinct, full-size binary values under the prefix', () => {
    const a = buildWorkloadData('set', 100, 32, 'p:', 3);
    const b = buildWorkloadData('set', 100, 32, 'p:', 3);
    expect(a.keys[99]).toBe('p:k:99');
    expect(a.counterKey).toBe('p:counter');
    expect(a.values.every((v, i) => v.equals(b.values[i] as Buffer) && v.length === 32)).toBe(true);
    expect(new Set(a.values.map((v) => v.toString('hex'))).size).toBe(100);
    expect(a.values.some((v) => v.some((byte) => byte > 127 || byte === 13 || byte === 10))).toBe(true);
  });

  it('gives set and get keys of their own: a set sample that failed after deleting its keys left GETs reading nil', () => {
    const set = buildWorkloadData('set', 10, 16, 'p:', 1);
    const get = buildWorkloadData('get', 10, 16, 'p:', 1);
    expect(get.keys[3]).toBe('p:g:3');
    expect(set.keys.filter((k) => get.keys.includes(k))).toEqual([]);
  });

  it('keeps values distinct when --size is too short for the decimal stamp (keys 10 and 100 held the same 2 bytes)', () => {
    for (const size of [2, 3]) {
      const d = buildWorkloadData('get', 1000, size, 'p:', 1);
      expect(new Set(d.values.map((v) => v.toString('hex'))).size).toBe(1000);
      expect(d.values.every((v) => v.length === size)).toBe(true);
    }
    expect(new Set(buildWorkloadData('set', 256, 1, 'p:', 1).values.map((v) => v[0])).size).toBe(256);
    expect(new Set(buildWorkloadData('get', 20_000, 2, 'p:', 1).values.map((v) => v.toString('hex'))).size).toBe(20_000);
  });
});
