import { mulberry32 } from '../../../src/link/rng.js';

/** A seeded PRNG with helpers: every fuzz case can be replayed from its seed. */
export class Rng {
  private readonly uniform: () => number;
  constructor(readonly seed: number) {
    this.uniform = mulberry32(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uniform();
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }

  /** Splits `buf` into 1..maxParts pieces at random points. */
  split(buf: Buffer, maxParts: number): Buffer[] {
    const cuts = new Set<number>();
    const parts = 1 + this.int(maxParts);
    for (let i = 1; i < parts && buf.length > 1; i++) cuts.add(1 + this.int(buf.length - 1));
    const sorted = [...cuts].sort((a, b) => a - b);
    const out: Buffer[] = [];
    let at = 0;
    for (const c of sorted) {
      out.push(buf.subarray(at, c));
      at = c;
    }
    out.push(buf.subarray(at));
    return out;
  }
}
