import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { LATENCY_MAX_US, LatencyHistogram } from '../../src/numbers/histogram.js';

/** HDR fed one value at a time, as LatencyHistogram configures it: what every reading must equal. */
function plainHdr(): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 2048,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    bitBucketSize: 32,
    useWebAssembly: false,
  });
}

describe('LatencyHistogram', () => {
  it('summarises integer microseconds exactly below 2048 us', () => {
    const h = new LatencyHistogram();
    for (let v = 1; v <= 1000; v++) h.record(v);
    expect(h.summary()).toEqual({ count: 1000, p50: 500, p90: 900, p99: 990, p999: 999, max: 1000, mean: 500.5, sum: 500500 });
  });

  it('is all zeros when empty', () => {
    expect(new LatencyHistogram().summary()).toEqual({ count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0, sum: 0 });
  });

  it('rounds, records 0 and negatives as 0, clamps past an hour, never throws', () => {
    const h = new LatencyHistogram();
    h.record(0);
    h.record(-5);
    h.record(Number.NaN);
    h.record(2.4);
    h.record(2.6);
    h.record(10 * LATENCY_MAX_US);
    const s = h.summary();
    expect(s.count).toBe(6);
    expect(s.p50).toBe(0);
    expect(h.summary().max).toBeGreaterThanOrEqual(LATENCY_MAX_US);
    expect(h.summary().max).toBeLessThan(LATENCY_MAX_US * 1.001);
  });

  it('keeps 3 significant digits across the range', () => {
    const h = new LatencyHistogram();
    h.record(123_456);
    const p50 = h.summary().p50;
    expect(Math.abs(p50 - 123_456) / 123_456).toBeLessThan(0.001);
  });

  it('adds another histogram (merging connections) and resets', () => {
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    for (let i = 0; i < 10; i++) a.record(100);
    for (let i = 0; i < 10; i++) b.record(5_000_000); // b grew far past a's initial range
    a.add(b);
    expect(a.summary()).toMatchObject({ count: 20, p50: 100 });
    expect(a.summary().max).toBeGreaterThan(4_990_000);
    a.reset();
    expect(a.count).toBe(0);
    const c = b.clone();
    b.reset();
    expect(c.count).toBe(10);
  });

  it('round-trips through the compressed base64 encoding', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 5000; i++) h.record((i * 7919) % 250_000);
    const encoded = h.encode();
    expect(encoded).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const back = LatencyHistogram.decode(encoded);
    // Percentiles read the same; the mean and sum are exact live and HDR's bucket mean once decoded.
    const { mean: liveMean, sum: liveSum, ...live } = h.summary();
    const { mean: decodedMean, sum: decodedSum, ...decoded } = back.summary();
    expect(decoded).toEqual(live);
    expect(Math.abs(decodedMean - liveMean) / liveMean).toBeLessThan(0.001);
    expect(Math.abs(decodedSum - liveSum) / liveSum).toBeLessThan(0.001);
    back.record(3_000_000_000); // a decoded histogram still grows
    expect(back.count).toBe(5001);
  });

  it('writes the .hgrm percentile distribution', () => {
    const h = new LatencyHistogram();
    for (let v = 1; v <= 100; v++) h.record(v);
    const text = h.percentileDistribution();
    expect(text.split('\n')[0]).toMatch(/^\s+Value\s+Percentile\s+TotalCount\s+1\/\(1-Percentile\)$/);
    expect(text).toContain('#[Max     =      100.000, Total count    =          100]');
    expect(text).toMatch(/^\s+100\.000 1\.000000000000\s+100\s*$/m);
    expect(h.percentileDistribution(5, 1000)).toContain('#[Max     =        0.100');
  });

  it('reads exactly as HDR fed each value at once, whatever the order and the reads between', () => {
    const h = new LatencyHistogram();
    const plain = plainHdr();
    let seed = 7;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      // Mostly below 2048 us (counted directly), runs of equal values, some far above.
      const v = i % 97 === 0 ? 2048 + (seed % 5_000_000) : i % 5 === 0 ? 300 : seed % 2100;
      h.record(v);
      plain.recordValue(v);
      if (i % 4999 === 0) expect(h.encode()).toBe(hdr.encodeIntoCompressedBase64(plain));
    }
    expect(h.count).toBe(20_000);
    expect(h.encode()).toBe(hdr.encodeIntoCompressedBase64(plain));
    expect(h.valueAtPercentile(99.9)).toBe(plain.getValueAtPercentile(99.9));
    expect(h.percentileDistribution()).toBe(plain.outputPercentileDistribution());
  });

  it('counts more equal small values than a 16-bit counter holds', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 200_000; i++) h.record(i % 2 === 0 ? 5 : 6);
    h.record(5);
    expect(h.count).toBe(200_001);
    expect(h.summary()).toMatchObject({ count: 200_001, p50: 5, max: 6 });
    const plain = plainHdr();
    plain.recordValueWithCount(5, 100_001);
    plain.recordValueWithCount(6, 100_000);
    expect(h.encode()).toBe(hdr.encodeIntoCompressedBase64(plain));
    h.reset();
    expect(h.count).toBe(0);
    h.record(7);
    expect(h.summary()).toMatchObject({ count: 1, p50: 7, max: 7 });
  });
  it('summary() walks the counts once and reads what HDR reads, whatever the shape, after subtract and decode too', () => {
    const oracle = (h: LatencyHistogram) => [50, 90, 99, 99.9, 100].map((p) => h.valueAtPercentile(p));
    const read = (h: LatencyHistogram) => {
      const s = h.summary();
      return [s.p50, s.p90, s.p99, s.p999, s.max];
    };
    let seed = 11;
    const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (const shape of ['tight', 'wide', 'two humps', 'one value', 'few']) {
      const h = new LatencyHistogram();
      const n = shape === 'few' ? 3 : 5000;
      for (let i = 0; i < n; i++) {
        const r = next();
        const v =
          shape === 'tight' ? 100 + (r % 20)
          : shape === 'wide' ? r % 30_000_000
          : shape === 'two humps' ? (i % 10 === 0 ? 80_000 + (r % 5000) : 200 + (r % 300))
          : shape === 'one value' ? 4321
          : 1 + (r % 9_000_000);
        h.record(v);
      }
      expect(read(h), shape).toEqual(oracle(h));
      const copy = LatencyHistogram.decode(h.encode());
      expect(read(copy), `${shape}, decoded`).toEqual(oracle(copy));
      // The dashboard's window: a later copy less an earlier one.
      const earlier = h.clone();
      for (let i = 0; i < 500; i++) h.record(next() % 5000);
      h.subtract(earlier);
      expect(read(h), `${shape}, subtracted`).toEqual(oracle(h));
    }
  });
});
