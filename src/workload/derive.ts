import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import { median } from '../numbers/quantiles.js';
import { waitsOf } from './plan.js';
import { runLabel, type ConfigOutcome } from './runner.js';
import { inTableOrder } from '../results/order.js';
import { isOk, type BenchResult, type MeasuredResult } from '../results/types.js';

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const medianOrNull = (xs: (number | null)[]): number | null =>
  xs.length > 0 && xs.every((x) => x !== null) ? median(xs as number[]) : null;

/**
 * Turns raw samples into results, in the table's order (results/order.ts) rather than the run's:
 * medians and ranges, then the cross-cell figures (speedup vs seq on the same link, the round-trip
 * model from `local`, for proxied links). Cells that never ran a sample and did not fail (skipped to
 * fit --max-seconds, with the sample's expected time; Ctrl-C) become notes instead of results.
 */
export function deriveResults(outcomes: readonly ConfigOutcome[]): { results: BenchResult[]; notes: string[] } {
  const results: BenchResult[] = [];
  const notes: string[] = [];
  for (const o of outcomes) {
    const c = o.config;
    if (o.samples.length === 0 && !o.error) {
      notes.push(o.skipped ? skippedNote(runLabel(c), o.skipped) : `not run: ${runLabel(c)}`);
      continue;
    }
    results.push(o.error ? failedResult(o, o.error) : measuredResult(o));
  }
  addCrossCellFigures(results);
  return { results: inTableOrder(results), notes };
}

/**
 * A cell --max-seconds left out. One sample longer than the whole bound never fits: said as the line before the run
 * says it, not as "more than the 0.2 s left", which reads as if a little more time would have run it.
 */
function skippedNote(label: string, sk: NonNullable<ConfigOutcome['skipped']>): string {
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const than = sk.expectedMs > sk.boundMs ? `--max-seconds ${sk.boundMs / 1000}` : `the ${s(Math.max(0, sk.leftMs))} left`;
  return `skipped: ${label}: one sample takes about ${s(sk.expectedMs)}, more than ${than}`;
}

/** What a result says of its configuration, measured or failed: link, shape, n, the samples kept. */
function configFields(o: ConfigOutcome): Pick<BenchResult, 'link' | 'linkRttUs' | 'mode' | 'workload' | 'batch' | 'n' | 'repeat' | 'samplesMs'> {
  const c = o.config;
  return {
    link: c.link.name,
    linkRttUs: c.link.rttUs,
    mode: c.mode,
    workload: c.workload,
    batch: c.batch,
    n: c.n,
    repeat: o.samples.length,
    samplesMs: o.samples.map((s) => round3(s.ms)),
  };
}

/** The link loses segments: the table puts p99 and p99.9 next to the median. */
function isLossy(o: ConfigOutcome): boolean {
  const link = o.config.link;
  const now = link.direct ? undefined : applyLinkUpdate(defaultLinkSettings(), link.update);
  return now !== undefined && (now.lossUp > 0 || now.lossDown > 0);
}

/** A configuration whose samples all passed: medians, ranges, latency and where the time went. */
function measuredResult(o: ConfigOutcome): MeasuredResult {
  const c = o.config;
  const fields = configFields(o);
  const samplesMs = fields.samplesMs;
  const waits = waitsOf(c.n, c.batch);
  const lossy = isLossy(o);
  const medianMs = median(samplesMs);
  const latency = new LatencyHistogram();
  for (const s of o.samples) for (const us of s.waitsUs) latency.record(us);
  const summary = latency.summary();
  const roundTrips = medianOrNull(o.samples.map((s) => s.roundTrips));
  const linkWaitMs = ((roundTrips ?? waits) * c.link.rttUs) / 1000;
  const serverMs = median(o.samples.map((s) => s.serverMs));
  const clientCpuMs = median(o.samples.map((s) => s.clientCpuMs));
  const proxyCpu = o.samples.map((s) => s.proxyCpuMs);
  const proxyCpuMs = proxyCpu.every((x) => x !== undefined) ? median(proxyCpu as number[]) : undefined;
  return {
    ...fields,
    medianMs,
    minMs: Math.min(...samplesMs),
    maxMs: Math.max(...samplesMs),
    opsPerSec: medianMs > 0 ? Math.round(c.n / (medianMs / 1000)) : 0,
    waits,
    roundTrips,
    bytesUp: medianOrNull(o.samples.map((s) => s.bytesUp)),
    bytesDown: medianOrNull(o.samples.map((s) => s.bytesDown)),
    speedup: null,
    modelMs: null,
    modelErrorPct: null,
    latencyUs: { p50: summary.p50, p90: summary.p90, p99: summary.p99, ...(lossy ? { p999: summary.p999 } : {}), max: summary.max },
    histogram: latency.encode(),
    breakdown: {
      linkWaitMs: round3(linkWaitMs),
      serverMs: round3(serverMs),
      clientCpuMs: round3(clientCpuMs),
      // Clamped: the driver's CPU overlaps link waits (and older reports' drivers held the proxies),
      // so the three parts can add up to more than the median; "other" is then nothing, never negative.
      otherMs: round3(Math.max(0, medianMs - linkWaitMs - serverMs - clientCpuMs)),
      // Its own process, on the other core or between the driver's turns: not a part of the median.
      ...(proxyCpuMs !== undefined ? { proxyCpuMs: round3(proxyCpuMs) } : {}),
    },
    ...(lossy ? { lossy: true as const } : {}),
    ...(c.note ? { note: c.note } : {}),
  };
}

/**
 * A failed configuration: its figures are null, not computed from the samples that finished before
 * the failure (those stay in samplesMs), so nothing reads as a measurement of a configuration that failed.
 */
function failedResult(o: ConfigOutcome, error: string): BenchResult {
  return {
    ...configFields(o),
    medianMs: null,
    minMs: null,
    maxMs: null,
    opsPerSec: null,
    waits: waitsOf(o.config.n, o.config.batch),
    roundTrips: null,
    bytesUp: null,
    bytesDown: null,
    speedup: null,
    modelMs: null,
    modelErrorPct: null,
    latencyUs: null,
    histogram: null,
    breakdown: null,
    ...(isLossy(o) ? { lossy: true as const } : {}),
    ...(o.config.note ? { note: o.config.note } : {}),
    error,
  };
}

const usable = (r: BenchResult): r is MeasuredResult => isOk(r) && r.repeat > 0 && r.medianMs > 0;

/**
 * speedup: seq's time per operation / this cell's, same link and workload (per operation, because
 * the demo lowers n for slow seq cells). modelMs: waits x RTT + the same cell's time on `local`,
 * scaled to this cell's n.
 */
function addCrossCellFigures(results: BenchResult[]): void {
  const measured = results.filter(usable);
  for (const r of measured) {
    const seq = measured.find((s) => s.mode === 'seq' && s.link === r.link && s.workload === r.workload);
    if (seq) r.speedup = round3(seq.medianMs / seq.n / (r.medianMs / r.n));
    const local = measured.find((l) => l.link === 'local' && l.mode === r.mode && l.batch === r.batch && l.workload === r.workload);
    // direct has no proxy hop to model: comparing it with local would only show the hop's cost.
    if (local && r.link !== 'direct') {
      const modelMs = (r.waits * r.linkRttUs) / 1000 + local.medianMs * (r.n / local.n);
      r.modelMs = round3(modelMs);
      r.modelErrorPct = round3(((r.medianMs - modelMs) / modelMs) * 100);
    }
  }
}
