import { randomBytes } from 'node:crypto';

/** A seeded uniform random source in [0, 1). */
export type Uniform = () => number;

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128 bits of state, passes
 * PractRand, and is fast in JS because it stays in 32-bit integer arithmetic.
 */
export function seededUniform(seed: number): Uniform {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const hi = Math.floor(seed / 2 ** 32) >>> 0;
  a ^= hi;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // Discard the first outputs: they still carry the constant initial state.
  for (let i = 0; i < 15; i++) next();
  return next;
}

/**
 * mulberry32: 32 bits of state, enough for the workload's value bytes and for test cases that
 * must replay from a seed; jitter uses sfc32 above. Kept as it is so existing seeds still give the
 * same values.
 */
export function mulberry32(seed: number): Uniform {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomSeed(): number {
  return randomBytes(4).readUInt32LE(0);
}
