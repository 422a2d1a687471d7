import { readFileSync } from 'node:fs';
import { mulberry32 } from '../../src/link/rng.js';
import { ReplyFramer } from '../../src/resp/reply-framer.js';
import { requestCommandName } from '../../src/resp/request-frame.js';
import { RequestFramer, type RequestFramerOptions } from '../../src/resp/request-framer.js';
import type { ReplyFrame, RequestFrame } from '../../src/resp/types.js';
import type { Expected } from './record-fixtures.js';

/** Test helpers: chunk plans, framer runs that copy what the sink sees, fixture loading. */

export const FIXTURE_DIR = new URL('../../fixtures/resp/', import.meta.url).pathname;
export const FIXTURES = [
  'resp2-basic', 'resp3-types', 'pubsub-resp2', 'pubsub-resp3', 'multi-exec', 'big-value', 'nested', 'inline',
  'monitor', 'synthetic-resp3', 'synthetic-requests',
];

export function loadFixture(name: string): { up: Buffer; down: Buffer; expected: Expected } {
  return {
    up: readFileSync(`${FIXTURE_DIR}${name}.up.resp`),
    down: readFileSync(`${FIXTURE_DIR}${name}.down.resp`),
    expected: JSON.parse(readFileSync(`${FIXTURE_DIR}${name}.expected.json`, 'utf8')) as Expected,
  };
}

/** A seeded PRNG, so every random case can be replayed from its seed. */
export const prng = mulberry32;

/** Chunk sizes: mostly tiny (to land boundaries everywhere), sometimes large. */
export function randomCuts(length: number, seed: number): number[] {
  const rnd = prng(seed);
  const sizes: number[] = [];
  for (let at = 0; at < length; ) {
    const r = rnd();
    const size = r < 0.6 ? 1 + Math.floor(rnd() * 8) : r < 0.9 ? 1 + Math.floor(rnd() * 200) : 1 + Math.floor(rnd() * 70000);
    sizes.push(Math.min(size, length - at));
    at += size;
  }
  return sizes;
}

export function fixedCuts(length: number, size: number): number[] {
  const sizes: number[] = [];
  for (let at = 0; at < length; at += size) sizes.push(Math.min(size, length - at));
  return sizes;
}

/**
 * Feeds `bytes` as separate chunk copies of the given sizes, and scribbles over each chunk once
 * push() returns, as a caller that reuses its read buffer would: a framer that kept a view into an
 * old chunk reports garbage.
 */
export function feed(push: (chunk: Buffer) => void, bytes: Buffer, sizes: number[]): void {
  let at = 0;
  for (const size of sizes) {
    const chunk = Buffer.from(bytes.subarray(at, at + size));
    push(chunk);
    chunk.fill(0xee);
    at += size;
  }
}

export interface SeenRequest {
  start: number;
  end: number;
  argc: number;
  inline: boolean;
  name: string;
  head: string[];
  argSizes?: number[];
}

export interface RunResult<F> {
  frames: F[];
  desyncs: { offset: number; reason: string }[];
  offset: number;
  unparsedBytes: number;
  desynced: boolean;
}

export function runRequests(bytes: Buffer, sizes: number[], options?: RequestFramerOptions): RunResult<SeenRequest> {
  const frames: SeenRequest[] = [];
  const desyncs: { offset: number; reason: string }[] = [];
  const framer = new RequestFramer(
    {
      frame: (f: RequestFrame) =>
        frames.push({
          start: f.start, end: f.end, argc: f.argc, inline: f.inline, name: requestCommandName(f),
          head: f.head.map((b) => b.toString('latin1')),
          ...(f.argSizes ? { argSizes: [...f.argSizes] } : {}),
        }),
      desync: (offset, reason) => desyncs.push({ offset, reason }),
    },
    options,
  );
  feed((c) => framer.push(c), bytes, sizes);
  return { frames, desyncs, offset: framer.offset, unparsedBytes: framer.unparsedBytes, desynced: framer.desynced };
}

export function runReplies(bytes: Buffer, sizes: number[]): RunResult<ReplyFrame> {
  const frames: ReplyFrame[] = [];
  const desyncs: { offset: number; reason: string }[] = [];
  const framer = new ReplyFramer({
    frame: (f) => frames.push(compact(f)),
    desync: (offset, reason) => desyncs.push({ offset, reason }),
  });
  feed((c) => framer.push(c), bytes, sizes);
  return { frames, desyncs, offset: framer.offset, unparsedBytes: framer.unparsedBytes, desynced: framer.desynced };
}

/** A copy of a reply frame without its undefined fields, to compare with JSON expectations. */
export function compact(f: ReplyFrame): ReplyFrame {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) if (v !== undefined) out[k] = v;
  return out as unknown as ReplyFrame;
}

/** A reply frame with its type as a character, as fixture expectations spell it. */
export function withTypeChar(f: ReplyFrame): Omit<ReplyFrame, 'type'> & { type: string } {
  return { ...f, type: String.fromCharCode(f.type) };
}
