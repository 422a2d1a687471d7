/**
 * A latency histogram of integer microseconds: a thin wrapper over HdrHistogramJS so the rest of
 * the code never sees its options. Range 1 us .. 1 hour at 3 significant digits; 0 is recorded as
 * 0 and values past an hour are clamped to an hour (a stuck BLPOP must not throw on the hot path).
 *
 * Pure JS (no WebAssembly: it needs async set-up and a manual destroy()), no timers. The counts
 * array starts small and grows with the largest value seen, so a command that only ever took
 * microseconds costs a fraction of what a full 1-hour range would (docs/measurements.md).
 *
 * Recording goes around HDR's index maths (`Math.log2`/`Math.pow` per value) where it can: values
 * below DIRECT_US, which HDR at 3 digits keeps one per bucket, are counted in a plain array and
 * handed to HDR, one call per distinct value, before anything reads the histogram. HDR's state
 * (counts, total, min, max) does not depend on the order values came in, so every reading, the
 * encoded form included, is the same as if each value had been recorded at once.
 */
import * as hdr from 'hdr-histogram-js';
import { ConfigError } from '../errors.js';

/** Percentiles of an HDR histogram of integer microseconds. All zero when count is 0. */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
  /** Every value added up, exactly: a Prometheus summary's _sum (mean x count would wobble with the rounding). */
  sum: number;
}

/** Largest value kept: one hour in microseconds. */
export const LATENCY_MAX_US = 3_600_000_000;
const SIGNIFICANT_DIGITS = 3;
// Values below 2048 get single-microsecond buckets at 3 digits; start there and grow on demand.
const INITIAL_HIGHEST_US = 2048;
/** Values below this are counted directly (one HDR bucket each at 3 significant digits). */
const DIRECT_US = 2048;
/** A direct count is handed to HDR before it would overflow its 16 bits. */
const DIRECT_MAX_COUNT = 0xffff;

function buildHdr(): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: INITIAL_HIGHEST_US,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
    autoResize: true,
    bitBucketSize: 32,
    useWebAssembly: false,
  });
}

export const EMPTY_SUMMARY: Readonly<LatencySummary> = Object.freeze({
  count: 0,
  p50: 0,
  p90: 0,
  p99: 0,
  p999: 0,
  max: 0,
  mean: 0,
  sum: 0,
});

const SUMMARY_PERCENTILES = [50, 90, 99, 99.9, 100] as const;

/**
 * HDR's getValueAtPercentile for several percentiles (ascending, above 0) in one walk of the counts:
 * each call of HDR's own walks the counts from the start, and a /stats snapshot asks five per
 * histogram, two histograms per command name, so the walks were most of a snapshot's time. The
 * same arithmetic as HDR's (the count at a percentile rounded up past one ulp, the highest value
 * equivalent to the bucket), so the values are HDR's to the unit; test/stats/histogram.test.ts
 * checks that against getValueAtPercentile. A histogram that is not HDR's JsHistogram (none here;
 * WebAssembly is off) takes HDR's own path.
 */
function percentilesInOneWalk(h: hdr.Histogram, percentiles: readonly number[]): number[] {
  if (!(h instanceof hdr.JsHistogram)) return percentiles.map((p) => h.getValueAtPercentile(p));
  const total = h.totalCount;
  const out: number[] = [];
  let k = 0;
  let want = countAtPercentile(percentiles[0]!, total);
  let seen = 0;
  for (let i = 0; i < h.countsArrayLength && k < percentiles.length; i++) {
    seen += h.getCountAtIndex(i);
    while (k < percentiles.length && seen >= want) {
      out.push(h.highestEquivalentValue(h.valueFromIndex(i)));
      if (++k < percentiles.length) want = countAtPercentile(percentiles[k]!, total);
    }
  }
  while (out.length < percentiles.length) out.push(0);
  return out;
}

/** HDR's count at a percentile: p% of the total, rounded up, less one ulp of fp error, at least 1. */
function countAtPercentile(percentile: number, total: number): number {
  const fp = (Math.min(percentile, 100) / 100) * total;
  const ulp = Math.pow(2, Math.floor(Math.log2(fp)) - 52);
  return Math.max(Math.ceil(fp - ulp), 1);
}

export class LatencyHistogram {
  private readonly hdr: hdr.Histogram;
  // Equal values in a row are counted here and recorded in one call: a pipeline's replies are
  // delivered in one write and share their clientUs, and HDR's index maths is the costly part.
  private runValue = 0;
  private runCount = 0;
  // A running sum: HDR's own mean walks every bucket, and /stats asks for two per command.
  private sumUs = 0;
  // Counts of values below DIRECT_US not yet in HDR (4 KB, made on the first such value), and how
  // many values they hold.
  private direct: Uint16Array | null = null;
  private directCount = 0;

  constructor(from?: hdr.Histogram) {
    // The class is exported: `new LatencyHistogram(-1)` was made without a word, and its first
    // record() threw a TypeError naming nothing.
    if (from !== undefined && !(from instanceof hdr.JsHistogram)) {
      throw new ConfigError('LatencyHistogram', from, 'no argument (an empty histogram); LatencyHistogram.decode(base64) reads an encoded one');
    }
    this.hdr = from ?? buildHdr();
    if (from && from.totalCount > 0) this.sumUs = from.mean * from.totalCount;
  }

  /** Records one value in microseconds (rounded to an integer, negative read as 0). */
  record(us: number): void {
    // `x > 0` is false for NaN too, so a missing stamp lands in the 0 bucket instead of throwing.
    const v = us > 0 ? (us < LATENCY_MAX_US ? Math.round(us) : LATENCY_MAX_US) : 0;
    this.sumUs += v;
    if (v < DIRECT_US) {
      const direct = this.direct ?? (this.direct = new Uint16Array(DIRECT_US));
      const n = direct[v]! + 1;
      if (n === DIRECT_MAX_COUNT) {
        this.hdr.recordValueWithCount(v, n);
        this.directCount -= n - 1;
        direct[v] = 0;
      } else {
        direct[v] = n;
        this.directCount++;
      }
      return;
    }
    if (v === this.runValue) {
      this.runCount++;
      return;
    }
    if (this.runCount > 0) this.hdr.recordValueWithCount(this.runValue, this.runCount);
    this.runValue = v;
    this.runCount = 1;
  }

  get count(): number {
    return this.hdr.totalCount + this.runCount + this.directCount;
  }

  /**
   * Percentiles and max as integers: the highest value equivalent to the bucket (HDR's
   * convention, exact below 2048 us, within 0.1% above), so a decoded copy reads the same.
   */
  summary(): LatencySummary {
    const h = this.flushed();
    if (h.totalCount === 0) return { ...EMPTY_SUMMARY };
    const [p50, p90, p99, p999, max] = percentilesInOneWalk(h, SUMMARY_PERCENTILES);
    return {
      count: h.totalCount,
      p50: p50!,
      p90: p90!,
      p99: p99!,
      p999: p999!,
      max: max!,
      mean: Math.round((this.sumUs / h.totalCount) * 1000) / 1000,
      sum: this.sumUs,
    };
  }

  /** The value at percentile `p` (0-100), same convention as summary(); 0 when empty. */
  valueAtPercentile(p: number): number {
    const h = this.flushed();
    return h.totalCount === 0 ? 0 : h.getValueAtPercentile(p);
  }

  /** Adds every value of `other` into this one (merging connections or time slices). */
  add(other: LatencyHistogram): void {
    const from = other.flushed();
    if (from.totalCount > 0) {
      this.flushed().add(from);
      this.sumUs += other.sumUs;
    }
  }

  /**
   * Takes out every value of `other`, an earlier copy of this one: what is left is what was
   * recorded since (the dashboard's window). `other` must hold no value this one lacks.
   */
  subtract(other: LatencyHistogram): void {
    const from = other.flushed();
    if (from.totalCount > 0) {
      this.flushed().subtract(from);
      this.sumUs -= other.sumUs;
    }
  }

  reset(): void {
    this.runCount = 0;
    if (this.directCount > 0) this.direct!.fill(0);
    this.directCount = 0;
    this.sumUs = 0;
    this.hdr.reset();
  }

  clone(): LatencyHistogram {
    const copy = new LatencyHistogram();
    copy.add(this);
    return copy;
  }

  /** HdrHistogram's compressed base64 form (V2 encoding), readable by every HdrHistogram port. */
  encode(): string {
    return hdr.encodeIntoCompressedBase64(this.flushed());
  }

  /** Reads what encode() wrote (or any HdrHistogram compressed base64 histogram). */
  static decode(base64: string): LatencyHistogram {
    let decoded: hdr.Histogram;
    try {
      decoded = hdr.decodeFromCompressedBase64(base64, 32, false);
    } catch (err) {
      // HDR's own errors name no argument ("incorrect data check", a TypeError for a number).
      const why = err instanceof Error ? ` (${err.message})` : '';
      throw new ConfigError('LatencyHistogram.decode', base64, `an HdrHistogram in compressed base64, as encode() writes it${why}`);
    }
    // Decoded histograms come back fixed-size; keep growing like ours so add() never throws.
    decoded.autoResize = true;
    return new LatencyHistogram(decoded);
  }

  /**
   * The `.hgrm` percentile distribution text (HdrHistogram's outputPercentileDistribution), in
   * microseconds unless `unitScale` divides them (1000 -> milliseconds).
   */
  percentileDistribution(ticksPerHalfDistance = 5, unitScale = 1): string {
    return this.flushed().outputPercentileDistribution(ticksPerHalfDistance, unitScale);
  }

  /** The HDR histogram with the pending run of equal values and the direct counts recorded into it. */
  private flushed(): hdr.Histogram {
    if (this.runCount > 0) {
      this.hdr.recordValueWithCount(this.runValue, this.runCount);
      this.runCount = 0;
    }
    if (this.directCount > 0) {
      const direct = this.direct!;
      for (let v = 0; v < DIRECT_US; v++) {
        const n = direct[v]!;
        if (n !== 0) this.hdr.recordValueWithCount(v, n);
      }
      direct.fill(0);
      this.directCount = 0;
    }
    return this.hdr;
  }
}
