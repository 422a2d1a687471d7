import { describe, expect, it } from 'vitest';
import { ChunkTimes } from '../../src/tap/chunk-times.js';
import { RequestRing } from '../../src/tap/request-ring.js';

describe('ChunkTimes', () => {
  it('gives the arrival of the chunk holding an offset and drops older chunks', () => {
    const t = new ChunkTimes();
    t.add(0, 100);
    t.add(10, 200);
    t.add(10, 250); // an empty chunk at 10 replaces the one before (no byte of its own)
    t.add(25, 300);
    expect(t.timeAt(3)).toBe(100);
    expect(t.timeAt(10)).toBe(250);
    expect(t.size).toBe(2);
    expect(t.timeAt(24)).toBe(250);
    expect(t.timeAt(40)).toBe(300);
    expect(t.size).toBe(1);
  });

  it('stays small over a long stream and grows only across a frame spanning many chunks', () => {
    const t = new ChunkTimes();
    for (let i = 0; i < 100_000; i++) {
      t.add(i * 10, i);
      expect(t.timeAt(i * 10 + 5)).toBe(i);
    }
    expect(t.size).toBe(1);
    for (let i = 0; i < 1000; i++) t.add(1e6 + i * 10, 1e6 + i); // one big reply in 1000 chunks
    expect(t.timeAt(1e6)).toBe(1e6);
    expect(t.size).toBe(1000);
    expect(t.timeAt(1e6 + 9995)).toBe(1e6 + 999);
    expect(t.size).toBe(1);
  });
});

describe('RequestRing', () => {
  it('keeps absolute indices across growth and reuses records', () => {
    const r = new RequestRing();
    for (let i = 0; i < 10; i++) r.push().argc = i;
    for (let i = 0; i < 5; i++) r.shift();
    for (let i = 10; i < 100; i++) r.push().argc = i; // wraps, then grows past 16
    expect(r.head).toBe(5);
    expect(r.size).toBe(95);
    for (let i = r.head; i < r.tail; i++) expect(r.at(i).argc).toBe(i);
    const capacity = r.capacity;
    for (let k = 0; k < 10_000; k++) {
      r.push();
      r.shift();
    }
    expect(r.capacity).toBe(capacity);
  });

  it('keeps two records for a connection that never pipelines', () => {
    const r = new RequestRing();
    for (let k = 0; k < 100; k++) {
      r.push().argc = k;
      expect(r.at(r.head).argc).toBe(k);
      r.shift();
    }
    expect(r.capacity).toBe(2);
    for (let i = 0; i < 16; i++) r.push();
    expect(r.capacity).toBe(16);
  });

  it('clears references of dropped records', () => {
    const r = new RequestRing();
    const rec = r.push();
    rec.keyHash = 'h';
    rec.argSizes = [1];
    r.shift();
    expect(rec.keyHash).toBeUndefined();
    expect(rec.argSizes).toBeUndefined();
  });
});
