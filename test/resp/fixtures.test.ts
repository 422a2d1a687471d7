import { describe, expect, it } from 'vitest';
import {
  FIXTURES, fixedCuts, loadFixture, randomCuts, runReplies, runRequests, withTypeChar, type RunResult,
} from './harness.js';

/** Every recorded and synthetic fixture, whole, byte by byte, in socket-sized and random chunks. */

const RANDOM_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

function plans(length: number): [string, number[]][] {
  const out: [string, number[]][] = [
    ['whole', length > 0 ? [length] : []],
    ['byte by byte', fixedCuts(length, 1)],
    ['64 KiB chunks', fixedCuts(length, 65536)],
  ];
  for (const seed of RANDOM_SEEDS) out.push([`random splits seed ${seed}`, randomCuts(length, seed)]);
  return out;
}

function expectClean<F>(run: RunResult<F>, length: number): void {
  expect(run.desyncs).toEqual([]);
  expect(run.desynced).toBe(false);
  expect(run.unparsedBytes).toBe(0);
  expect(run.offset).toBe(length);
}

describe.each(FIXTURES)('fixture %s', (name) => {
  const { up, down, expected } = loadFixture(name);

  it('has expectations that cover the whole stream', () => {
    const lastDown = expected.down[expected.down.length - 1];
    expect(lastDown?.end ?? 0).toBe(down.length);
    // Reply frames are back to back; request frames may leave gaps only for bytes Redis ignores.
    expected.down.forEach((f, i) => expect(f.start).toBe(i === 0 ? 0 : expected.down[i - 1]!.end));
  });

  it.each(plans(up.length))('frames requests: %s', (_plan, sizes) => {
    const run = runRequests(up, sizes);
    expectClean(run, up.length);
    expect(run.frames.map(({ start, end, argc, name, inline }) => ({ start, end, argc, name, inline })))
      .toEqual(expected.up);
  });

  it.each(plans(down.length))('frames replies: %s', (_plan, sizes) => {
    const run = runReplies(down, sizes);
    expectClean(run, down.length);
    expect(run.frames.map(withTypeChar)).toEqual(expected.down);
  });
});
