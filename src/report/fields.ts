/**
 * Every scalar field of a result row, flattened (latencyUs.p50, breakdown.serverMs), as data:
 * CSV and markdown both walk this list, so adding a field to the types means adding one line here.
 */
import type { BenchReport, BenchResult, CalibrateReport, CalibrateRow } from '../results/types.js';
import { groupByLink } from './order.js';

export type Scalar = string | number | null | undefined;

export interface Field<T> {
  name: string;
  get: (row: T) => Scalar;
  /** Long opaque values (histograms) that a human-facing table leaves out. */
  bulky?: boolean;
}

export const BENCH_FIELDS: ReadonlyArray<Field<BenchResult>> = [
  { name: 'link', get: (r) => r.link },
  { name: 'linkRttUs', get: (r) => r.linkRttUs },
  { name: 'mode', get: (r) => r.mode },
  { name: 'workload', get: (r) => r.workload },
  { name: 'batch', get: (r) => r.batch },
  { name: 'n', get: (r) => r.n },
  { name: 'repeat', get: (r) => r.repeat },
  { name: 'medianMs', get: (r) => r.medianMs },
  { name: 'minMs', get: (r) => r.minMs },
  { name: 'maxMs', get: (r) => r.maxMs },
  { name: 'opsPerSec', get: (r) => r.opsPerSec },
  { name: 'waits', get: (r) => r.waits },
  { name: 'roundTrips', get: (r) => r.roundTrips },
  { name: 'bytesUp', get: (r) => r.bytesUp },
  { name: 'bytesDown', get: (r) => r.bytesDown },
  { name: 'speedup', get: (r) => r.speedup },
  { name: 'modelMs', get: (r) => r.modelMs },
  { name: 'modelErrorPct', get: (r) => r.modelErrorPct },
  { name: 'latencyUs.p50', get: (r) => r.latencyUs?.p50 },
  { name: 'latencyUs.p90', get: (r) => r.latencyUs?.p90 },
  { name: 'latencyUs.p99', get: (r) => r.latencyUs?.p99 },
  { name: 'latencyUs.max', get: (r) => r.latencyUs?.max },
  { name: 'breakdown.linkWaitMs', get: (r) => r.breakdown?.linkWaitMs },
  { name: 'breakdown.serverMs', get: (r) => r.breakdown?.serverMs },
  { name: 'breakdown.clientCpuMs', get: (r) => r.breakdown?.clientCpuMs },
  { name: 'breakdown.otherMs', get: (r) => r.breakdown?.otherMs },
  // The samples are a list; joined with spaces they stay one cell that splits back cleanly.
  { name: 'samplesMs', get: (r) => r.samplesMs.join(' ') },
  { name: 'note', get: (r) => r.note },
  { name: 'error', get: (r) => r.error },
  { name: 'histogram', get: (r) => r.histogram, bulky: true },
];

export const CALIBRATE_FIELDS: ReadonlyArray<Field<CalibrateRow>> = [
  { name: 'label', get: (r) => r.label },
  { name: 'configuredRttUs', get: (r) => r.configuredRttUs },
  { name: 'samples', get: (r) => r.samples },
  { name: 'rttP50Us', get: (r) => r.rttP50Us },
  { name: 'rttP99Us', get: (r) => r.rttP99Us },
  { name: 'addedP50Us', get: (r) => r.addedP50Us },
  { name: 'addedP99Us', get: (r) => r.addedP99Us },
  { name: 'errorPct', get: (r) => r.errorPct },
  { name: 'proxyCpuPct', get: (r) => r.proxyCpuPct },
  { name: 'histogram', get: (r) => r.histogram, bulky: true },
];

export interface FieldTable {
  header: string[];
  rows: Scalar[][];
}

/** Rows in the same order as the comparison table (link blocks, then mode and batch). */
export function fieldTable(report: BenchReport | CalibrateReport, opts: { bulky?: boolean } = {}): FieldTable {
  const keep = <T>(fields: ReadonlyArray<Field<T>>): ReadonlyArray<Field<T>> =>
    opts.bulky === false ? fields.filter((f) => !f.bulky) : fields;
  if (report.kind === 'calibrate') {
    const fields = keep(CALIBRATE_FIELDS);
    return { header: fields.map((f) => f.name), rows: report.rows.map((r) => fields.map((f) => f.get(r))) };
  }
  const fields = keep(BENCH_FIELDS);
  const ordered = groupByLink(report.results).flatMap((g) => g.results);
  return { header: fields.map((f) => f.name), rows: ordered.map((r) => fields.map((f) => f.get(r))) };
}

/** Numbers exactly as JSON has them (no rounding: CSV is for further analysis); null as empty. */
export function scalarText(v: Scalar): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v;
}
