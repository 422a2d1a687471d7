import { mulberry32 } from '../link/rng.js';
import type { Workload } from '../results/types.js';

/** "99999999:", the longest decimal stamp -n allows (100,000,000 operations). */
const DECIMAL_STAMP_BYTES = 9;

/** The keys and values one workload touches, built before any timing starts. */
export interface WorkloadData {
  /** The single counter of the `incr` workload. */
  counterKey: string;
  /** `<prefix>k:<i>` (set) or `<prefix>g:<i>` (get) for i = 0..n-1; empty for incr. */
  keys: string[];
  /** The value written to / expected from keys[i], `size` bytes each (set and get; empty for incr). */
  values: Buffer[];
}

/**
 * Values are seeded pseudo-random bytes (all 256 byte values occur, so a proxy that is not
 * binary-safe fails the byte-exact GET check) with the index in the first bytes, so no two keys
 * hold the same value (while 256^size covers n) and a GET answered with the wrong key's value is caught.
 */
export function buildWorkloadData(workload: Workload, n: number, sizeBytes: number, prefix: string, seed: number): WorkloadData {
  const counterKey = `${prefix}counter`;
  if (workload === 'incr') return { counterKey, keys: [], values: [] };
  const keys = new Array<string>(n);
  const values = new Array<Buffer>(n);
  const next = mulberry32(seed);
  // Apart: a set sample deletes its keys first, and one that failed half-way left the get workload's
  // preloaded keys gone, so every GET configuration after it failed on nil (the demo runs both).
  const space = workload === 'get' ? 'g' : 'k';
  // By size alone, not n: two workloads of one run (the demo's set and get) share keys and must agree.
  const binary = sizeBytes < DECIMAL_STAMP_BYTES;
  for (let i = 0; i < n; i++) {
    keys[i] = `${prefix}${space}:${i}`;
    const v = Buffer.allocUnsafe(sizeBytes);
    for (let j = 0; j < sizeBytes; j++) v[j] = Math.floor(next() * 256);
    // Stamp the index in the leading bytes; values too short for a whole "i:" hold i in binary
    // instead, as the cut decimal stamp made keys 10 and 100 hold the same 2 bytes.
    if (binary) stampBinary(v, i);
    else Buffer.from(`${i}:`).copy(v, 0);
    values[i] = v;
  }
  return { counterKey, keys, values };
}

/** i in base 256, last byte lowest: distinct for every i below 256^length. */
function stampBinary(v: Buffer, i: number): void {
  let rest = i;
  for (let j = v.length - 1; j >= 0; j--) {
    v[j] = rest % 256;
    rest = Math.floor(rest / 256);
  }
}

/** Every key a run may have created, for cleanup: only our own prefixed keys, never a FLUSH. */
export function allKeys(data: WorkloadData): string[] {
  return [data.counterKey, ...data.keys];
}
