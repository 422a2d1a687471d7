import type { Redis } from 'ioredis';
import { VerificationError } from '../errors.js';
import type { WorkloadData } from './keys.js';
import type { Replies } from './shapes/index.js';
import type { Workload } from '../results/types.js';

/**
 * Checks every reply of one sample, outside the timing. A dropped reply shifts every later one
 * (caught as a wrong value or no reply), a duplicated one does the same, an error reply is
 * reported with its 1-based command index: "command 487 of 1000: WRONGTYPE ...".
 */
export function verifyReplies(workload: Workload, replies: Replies, data: WorkloadData, n: number): void {
  for (let i = 0; i < n; i++) {
    const r = replies[i];
    const fail = (what: string): never => {
      throw new VerificationError(`command ${i + 1} of ${n}: ${what}`, i + 1);
    };
    if (r instanceof Error) fail(r.message);
    if (r === undefined) fail('no reply');
    if (workload === 'incr') {
      if (r !== i + 1) fail(`INCR returned ${describe(r)}, expected ${i + 1}`);
    } else if (workload === 'set') {
      if (r !== 'OK') fail(`SET returned ${describe(r)}, expected OK`);
    } else {
      const expected = data.values[i] as Buffer;
      if (!Buffer.isBuffer(r) || !r.equals(expected)) fail(`GET returned ${describe(r)}, expected ${describe(expected)}`);
    }
  }
  if (replies.length > n) {
    throw new VerificationError(`${replies.length - n} more replies than the ${n} commands sent`, n + 1);
  }
}

/** Checks what the sample left in Redis (the counter's final value; every value written). */
export async function verifyStoredState(admin: Redis, workload: Workload, data: WorkloadData, n: number): Promise<void> {
  if (workload === 'incr') {
    const v = await admin.get(data.counterKey);
    if (v !== String(n)) throw new VerificationError(`after the sample the counter is ${describe(v)}, expected ${n}`);
  } else if (workload === 'set') {
    for (let from = 0; from < n; from += 1000) {
      const to = Math.min(n, from + 1000);
      const stored = await admin.mgetBuffer(data.keys.slice(from, to));
      for (let i = from; i < to; i++) {
        const got = stored[i - from];
        const expected = data.values[i] as Buffer;
        if (!got || !got.equals(expected)) {
          throw new VerificationError(
            `after the sample ${data.keys[i]} holds ${describe(got ?? null)}, expected ${describe(expected)}`,
            i + 1,
          );
        }
      }
    }
  }
}

/** A short, printable description of a reply value. */
export function describe(v: unknown): string {
  if (v === null) return 'nil';
  if (v === undefined) return 'nothing';
  if (Buffer.isBuffer(v)) {
    const head = v.subarray(0, 12).toString('hex');
    return `${v.length} bytes (${head}${v.length > 12 ? '...' : ''})`;
  }
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  return String(v);
}
