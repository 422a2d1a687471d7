/** A seeded PRNG (mulberry32): every fuzz case can be replayed from its seed. */
export class Rng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
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
