import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import { median } from '../numbers/quantiles.js';
import { waitsOf } from './plan.js';
import { runLabel, type ConfigOutcome } from './runner.js';
import type { BenchResult } from '../results/types.js';

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const medianOrNull = (xs: (number | null)[]): number | null =>
  xs.length > 0 && xs.every((x) => x !== null) ? median(xs as number[]) : null;

/**
 * Turns raw samples into results: medians and ranges, then the cross-cell figures (speedup vs
 * seq on the same link, the round-trip model from `local`, for proxied links). Cells that never ran a sample and did
 * not fail (skipped to fit --max-seconds, with the sample's expected time; Ctrl-C) become notes instead of results.
 */
export function deriveResults(outcomes: readonly ConfigOutcome[]): { results: BenchResult[]; notes: string[] } {
  const results: BenchResult[] = [];
  const notes: string[] = [];
  for (const o of outcomes) {
    const c = o.config;
    if (o.samples.length === 0 && !o.error) {
      const sk = o.skipped;
      const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
      notes.push(sk ? `skipped: ${runLabel(c)}: one sample takes about ${s(sk.expectedMs)}, more than the ${s(Math.max(0, sk.leftMs))} left` : `not run: ${runLabel(c)}`);
      continue;
    }
    const samplesMs = o.samples.map((s) => round3(s.ms));
    const medianMs = median(samplesMs);
    const latency = new LatencyHistogram();
    for (const s of o.samples) for (const us of s.waitsUs) latency.record(us);
    const summary = latency.summary();
    const roundTrips = medianOrNull(o.samples.map((s) => s.roundTrips));
    const waits = waitsOf(c.n, c.batch);
    const linkWaitMs = ((roundTrips ?? waits) * c.link.rttUs) / 1000;
    const linkNow = c.link.direct ? undefined : applyLinkUpdate(defaultLinkSettings(), c.link.update);
    const lossy = linkNow !== undefined && (linkNow.lossUp > 0 || linkNow.lossDown > 0);
    const serverMs = median(o.samples.map((s) => s.serverMs));
    const clientCpuMs = median(o.samples.map((s) => s.clientCpuMs));
    const proxyCpu = o.samples.map((s) => s.proxyCpuMs);
    const proxyCpuMs = proxyCpu.length > 0 && proxyCpu.every((x) => x !== undefined) ? median(proxyCpu as number[]) : undefined;
    const r: BenchResult = {
      link: c.link.name,
      linkRttUs: c.link.rttUs,
      mode: c.mode,
      workload: c.workload,
      batch: c.batch,
      n: c.n,
      repeat: o.samples.length,
      samplesMs,
      medianMs,
      minMs: samplesMs.length ? Math.min(...samplesMs) : 0,
      maxMs: samplesMs.length ? Math.max(...samplesMs) : 0,
      opsPerSec: medianMs > 0 ? Math.round(c.n / (medianMs / 1000)) : 0,
      waits,
      roundTrips: o.samples.length ? roundTrips : null,
      bytesUp: o.samples.length ? medianOrNull(o.samples.map((s) => s.bytesUp)) : null,
      bytesDown: o.samples.length ? medianOrNull(o.samples.map((s) => s.bytesDown)) : null,
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
      ...(o.error ? { error: o.error } : {}),
    };
    results.push(r);
  }
  addCrossCellFigures(results);
  return { results, notes };
}

const usable = (r: BenchResult): boolean => !r.error && r.repeat > 0 && r.medianMs > 0;

/**
 * speedup: seq's time per operation / this cell's, same link and workload (per operation, because
 * the demo lowers n for slow seq cells). modelMs: waits x RTT + the same cell's time on `local`,
 * scaled to this cell's n.
 */
function addCrossCellFigures(results: BenchResult[]): void {
  for (const r of results) {
    if (!usable(r)) continue;
    const seq = results.find((s) => s.mode === 'seq' && s.link === r.link && s.workload === r.workload && usable(s));
    if (seq) r.speedup = round3(seq.medianMs / seq.n / (r.medianMs / r.n));
    const local = results.find(
      (l) => l.link === 'local' && l.mode === r.mode && l.batch === r.batch && l.workload === r.workload && usable(l),
    );
    // direct has no proxy hop to model: comparing it with local would only show the hop's cost.
    if (local && r.link !== 'direct') {
      const modelMs = (r.waits * r.linkRttUs) / 1000 + local.medianMs * (r.n / local.n);
      r.modelMs = round3(modelMs);
      r.modelErrorPct = round3(((r.medianMs - modelMs) / modelMs) * 100);
    }
  }
}
