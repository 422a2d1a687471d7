/**
 * Every scalar field of a result row, flattened (latencyUs.p50, breakdown.serverMs), as data:
 * CSV and markdown both walk this list, so adding a field to the types means adding one line here.
 * A bench figure is printed rounded as the table rounds it, as a bare number (the JSON keeps every
 * digit): 12.345678901 ms is 12.3, as in the table's median column.
 */
import type { BenchReport, BenchResult, CalibrateReport, CalibrateRow } from '../results/types.js';
import { fmtFactorNumber, fmtMs, fmtPctNumber, fmtUs, fmtWhole } from '../format.js';
import { inTableOrder } from '../results/order.js';

export type Scalar = string | number | null | undefined;

export interface Field<T> {
  name: string;
  get: (row: T) => Scalar;
  /** How a number is printed: the table's rounding for that unit. Absent: as JSON has it. */
  text?: (v: number) => string;
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
  { name: 'medianMs', get: (r) => r.medianMs, text: fmtMs },
  { name: 'minMs', get: (r) => r.minMs, text: fmtMs },
  { name: 'maxMs', get: (r) => r.maxMs, text: fmtMs },
  { name: 'opsPerSec', get: (r) => r.opsPerSec, text: fmtWhole },
  { name: 'waits', get: (r) => r.waits },
  { name: 'roundTrips', get: (r) => r.roundTrips, text: fmtWhole },
  { name: 'bytesUp', get: (r) => r.bytesUp, text: fmtWhole },
  { name: 'bytesDown', get: (r) => r.bytesDown, text: fmtWhole },
  { name: 'speedup', get: (r) => r.speedup, text: fmtFactorNumber },
  { name: 'modelMs', get: (r) => r.modelMs, text: fmtMs },
  { name: 'modelErrorPct', get: (r) => r.modelErrorPct, text: fmtPctNumber },
  { name: 'latencyUs.p50', get: (r) => r.latencyUs?.p50, text: fmtUs },
  { name: 'latencyUs.p90', get: (r) => r.latencyUs?.p90, text: fmtUs },
  { name: 'latencyUs.p99', get: (r) => r.latencyUs?.p99, text: fmtUs },
  { name: 'latencyUs.max', get: (r) => r.latencyUs?.max, text: fmtUs },
  { name: 'breakdown.linkWaitMs', get: (r) => r.breakdown?.linkWaitMs, text: fmtMs },
  { name: 'breakdown.serverMs', get: (r) => r.breakdown?.serverMs, text: fmtMs },
  { name: 'breakdown.clientCpuMs', get: (r) => r.breakdown?.clientCpuMs, text: fmtMs },
  { name: 'breakdown.otherMs', get: (r) => r.breakdown?.otherMs, text: fmtMs },
  // The table's prx: the link's proxy process, apart from the median's parts; empty on direct and in older reports.
  { name: 'breakdown.proxyCpuMs', get: (r) => r.breakdown?.proxyCpuMs, text: fmtMs },
  // The samples are a list; joined with spaces they stay one cell that splits back cleanly.
  { name: 'samplesMs', get: (r) => r.samplesMs.map(fmtMs).join(' ') },
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
  /** The rows' cells as CSV and markdown print them: numbers rounded as the table rounds them, null as empty. */
  texts: string[][];
}

/** Rows in the same order as the comparison table (link blocks, then mode and batch). */
export function fieldTable(report: BenchReport | CalibrateReport, opts: { bulky?: boolean } = {}): FieldTable {
  const keep = <T>(fields: ReadonlyArray<Field<T>>): ReadonlyArray<Field<T>> =>
    opts.bulky === false ? fields.filter((f) => !f.bulky) : fields;
  const table = <T>(fields: ReadonlyArray<Field<T>>, rows: readonly T[]): FieldTable => {
    const values = rows.map((r) => fields.map((f) => f.get(r)));
    return {
      header: fields.map((f) => f.name),
      rows: values,
      texts: values.map((row) => row.map((v, c) => scalarText(v, fields[c]!.text))),
    };
  };
  if (report.kind === 'calibrate') return table(keep(CALIBRATE_FIELDS), report.rows);
  // A report from before may hold its results in run order.
  return table(keep(BENCH_FIELDS), inTableOrder(report.results));
}

/** Null (a figure a failed configuration has not) and non-finite numbers as empty; numbers through `text` when given. */
function scalarText(v: Scalar, text?: (v: number) => string): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'number') return v;
  if (!Number.isFinite(v)) return '';
  return text ? text(v) : String(v);
}
