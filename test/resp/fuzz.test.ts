import { describe, expect, it } from 'vitest';
import { FIXTURES, loadFixture, prng, randomCuts, runReplies, runRequests, type RunResult } from './harness.js';

/**
 * Random and mutated input: the framers never throw, account for every byte, and give the same
 * answer however the stream is cut. Seeded; each suite stops after its case count or time budget.
 */

const BUDGET_MS = 2500;
const ALPHABET = Buffer.from('*$+-:_#,(!=%~|>.;?\r\n\r\n\r\n0123456789-1 abcXYZ"\'\\\x00\xff', 'latin1');

interface Span {
  start: number;
  end: number;
}

function checkAccounting<F extends Span>(run: RunResult<F>, total: number, contiguous: boolean): void {
  expect(run.offset).toBe(total);
  let prevEnd = 0;
  for (const f of run.frames) {
    expect(f.end).toBeGreaterThan(f.start);
    if (contiguous) expect(f.start).toBe(prevEnd);
    else expect(f.start).toBeGreaterThanOrEqual(prevEnd);
    prevEnd = f.end;
  }
  if (run.desynced) {
    expect(run.desyncs).toHaveLength(1);
    const at = run.desyncs[0]!.offset;
    expect(at).toBeGreaterThanOrEqual(prevEnd);
    // parsed bytes (everything before the desync point) + unparsed bytes = all bytes fed
    expect(at + run.unparsedBytes).toBe(total);
  } else {
    expect(run.desyncs).toEqual([]);
    expect(run.unparsedBytes).toBe(0);
    expect(prevEnd).toBeLessThanOrEqual(total);
  }
}

function randomBytes(rnd: () => number): Buffer {
  const n = Math.floor(rnd() * 120);
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = rnd() < 0.9 ? ALPHABET[Math.floor(rnd() * ALPHABET.length)]! : Math.floor(rnd() * 256);
  return out;
}

function mutate(src: Buffer, rnd: () => number): Buffer {
  let out = Buffer.from(src);
  const edits = 1 + Math.floor(rnd() * 3);
  for (let e = 0; e < edits && out.length > 0; e++) {
    const at = Math.floor(rnd() * out.length);
    const r = rnd();
    if (r < 0.4) out[at] = ALPHABET[Math.floor(rnd() * ALPHABET.length)]!;
    else if (r < 0.6) out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1)]);
    else if (r < 0.8) out = Buffer.concat([out.subarray(0, at), randomBytes(rnd).subarray(0, 4), out.subarray(at)]);
    else out = out.subarray(0, at);
  }
  return out;
}

function both(bytes: Buffer, seed: number): void {
  const sizes = randomCuts(bytes.length, seed);
  const whole = [bytes.length];
  for (const [run, contiguous] of [[runRequests, false], [runReplies, true]] as const) {
    const a = run(bytes, bytes.length > 0 ? whole : []) as RunResult<Span>;
    const b = run(bytes, sizes) as RunResult<Span>;
    checkAccounting(a, bytes.length, contiguous);
    checkAccounting(b, bytes.length, contiguous);
    expect(b.frames).toEqual(a.frames);
    expect(b.desyncs.map((d) => d.offset)).toEqual(a.desyncs.map((d) => d.offset));
  }
}

function forBudget(cases: number, body: (i: number) => void): number {
  const t0 = performance.now();
  let i = 0;
  for (; i < cases && performance.now() - t0 < BUDGET_MS; i++) body(i);
  return i;
}

describe('fuzz', () => {
  it('survives random bytes', () => {
    const rnd = prng(7);
    const done = forBudget(5000, (i) => both(randomBytes(rnd), i));
    expect(done).toBeGreaterThan(200);
  });

  it('survives mutated fixture streams', () => {
    const rnd = prng(8);
    const streams = FIXTURES.filter((n) => n !== 'big-value').flatMap((n) => {
      const { up, down } = loadFixture(n);
      return [up, down].filter((s) => s.length > 0 && s.length < 5000);
    });
    const done = forBudget(3000, (i) => both(mutate(streams[i % streams.length]!, rnd), i));
    expect(done).toBeGreaterThan(100);
  });
});
