import { describe, expect, it } from 'vitest';
import type { ByteSink, ByteStageFactory } from '../../src/stage/types.js';
import { createToxic } from '../../src/toxics/index.js';
import { seededUniform } from '../../src/link/rng.js';
import { env, fakeConn, MS, RecordingSink } from './helpers.js';

/**
 * A chain of the byte toxics that hold, slice and pace data (none targets bytes for removal):
 * whatever the chunking, timing and toxic settings, every byte arrives once, unchanged, in order,
 * followed by the end.
 */
describe('a chain of toxics alters no byte it was not asked to', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`seed ${seed}`, () => {
      const r = seededUniform(seed * 7919);
      const e = env(seed);
      const specs = [
        { type: 'latency', attributes: { latency: r() * 2, jitter: r() * 3 } },
        { type: 'slicer', attributes: { average_size: 1 + Math.floor(r() * 20), size_variation: 0, delay: Math.floor(r() * 100) } },
        { type: 'bandwidth', attributes: { rate: 50 + Math.floor(r() * 500) } },
        { type: 'slow_close', attributes: { delay: Math.floor(r() * 5) } },
        { type: 'latency', name: 'l2', attributes: { latency: 0.05 } },
      ];
      // Shuffle the order of the chain.
      specs.sort(() => r() - 0.5);
      const sink = new RecordingSink();
      const conn = fakeConn(e.clock);
      let next: ByteSink = sink;
      const stages = specs
        .reverse()
        .map((s) => {
          const stage = (createToxic(s, { scheduler: e.scheduler, uniform: e.uniform }).stage as ByteStageFactory).create(conn, next);
          next = stage;
          return stage;
        })
        .reverse();
      const head = stages[0]!;
      const sent: Buffer[] = [];
      let t = 0;
      for (let i = 0; i < 200; i++) {
        const len = 1 + Math.floor(r() * 300);
        const b = Buffer.alloc(len);
        for (let k = 0; k < len; k++) b[k] = Math.floor(r() * 256);
        sent.push(b);
        t += Math.floor(r() * 0.5 * MS);
        e.scheduler.runUntil(t);
        head.push(b, t);
        // Remove a stage from the middle of the flow now and then: it must hand on what it holds.
        if (i === 120) stages[2]!.drain(t);
      }
      head.end('end', t);
      e.scheduler.runUntil(t + 10_000 * MS);
      expect(Buffer.from(sink.text, 'latin1').equals(Buffer.concat(sent))).toBe(true);
      expect(sink.ends.map((x) => x.kind)).toEqual(['end']);
      for (let i = 1; i < sink.chunks.length; i++) expect(sink.chunks[i]!.atNs).toBeGreaterThanOrEqual(sink.chunks[i - 1]!.atNs);
    });
  }
});
