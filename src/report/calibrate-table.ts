/**
 * `redis-rtt calibrate` for a terminal: configured vs measured added RTT per row, then the idle
 * proxy's CPU and the verdict.
 */
import { z } from 'zod';
import type { CalibrateReport, CalibrateRow } from '../results/types.js';
import { keyPath, parseWith } from '../validation/schema.js';
import { environmentLine } from './context.js';
import { checkReport } from './load.js';
import { fmtSignedPct, fmtUs, fmtUsLabel, orDash } from '../format.js';
import { RULE, paint, renderGrid, type Align, type GridRow } from '../text-grid.js';

/** Columns of the calibration table, shared with the HTML page. */
export const CALIBRATE_COLUMNS: Array<{ title: string; align: Align; cell: (r: CalibrateRow) => string }> = [
  { title: 'link', align: 'left', cell: (r) => r.label },
  { title: 'configured', align: 'right', cell: (r) => orDash(r.configuredRttUs, configured) },
  { title: 'samples', align: 'right', cell: (r) => String(r.samples) },
  { title: 'rtt p50 us', align: 'right', cell: (r) => fmtUs(r.rttP50Us) },
  { title: 'rtt p99 us', align: 'right', cell: (r) => fmtUs(r.rttP99Us) },
  { title: 'added p50 us', align: 'right', cell: (r) => orDash(r.addedP50Us, fmtUs) + range(r) },
  { title: 'added p99 us', align: 'right', cell: (r) => orDash(r.addedP99Us, fmtUs) },
  { title: 'error', align: 'right', cell: (r) => orDash(r.errorPct, fmtSignedPct) },
  { title: 'proxy CPU', align: 'right', cell: (r) => orDash(r.proxyCpuPct, (v) => `${v.toFixed(1)}%`) },
  { title: 'late p50/p99 us', align: 'right', cell: (r) => (r.lateP50Us == null || r.lateP99Us == null ? '-' : `${fmtUs(r.lateP50Us)}/${fmtUs(r.lateP99Us)}`) },
];

export interface CalibrateTableOptions {
  /** ANSI colour (bold header, dim rules and footer). @default false */
  color?: boolean;
  /** The file this result is saved in (calibrate --json FILE, report FILE): the `use it:` line names it. */
  savedAs?: string;
}

const CALIBRATE_TABLE_OPTIONS = z.strictObject(
  {
    color: z.boolean({ error: 'true or false' }).optional(),
    savedAs: z.string({ error: 'a file name' }).optional(),
  } satisfies Record<keyof CalibrateTableOptions, z.ZodType>,
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? "a key of renderCalibrateTable's options: color, savedAs" : "an object of renderCalibrateTable's options",
  },
);

export function renderCalibrateTable(report: CalibrateReport, opts: CalibrateTableOptions = {}): string {
  checkReport(report, 'renderCalibrateTable', ['calibrate']);
  parseWith(CALIBRATE_TABLE_OPTIONS, opts, keyPath('options'));
  const color = opts.color ?? false;
  const rows: GridRow[] = [{ cells: CALIBRATE_COLUMNS.map((c) => c.title), tone: 'bold' }, RULE];
  for (const r of report.rows) rows.push({ cells: CALIBRATE_COLUMNS.map((c) => c.cell(r)) });
  if (report.rows.length === 0) rows.push({ cells: ['(no rows)'] });
  const lines = renderGrid(
    rows,
    CALIBRATE_COLUMNS.map((c) => c.align),
    { color },
  );
  lines.push(
    '',
    'added = measured PING RTT minus direct; error = (added p50 - configured) / configured;',
    "late = how far after its due time the proxy's delay line delivered (its own precision).",
    ...(report.rows.some((r) => r.addedMinUs != null)
      ? ['(min..max) = the smallest and largest added p50 over the alternating direct/proxied rounds.']
      : []),
    ...(report.compensationUs === undefined ? [] : [`hop compensation: ${report.compensationUs} us taken off each one-way delay.`]),
    ...compensationLines(report, opts.savedAs),
    `idle proxy CPU: ${idleCpuText(report)}.`,
    '',
    paint(`verdict: ${report.verdict}`, 'bold', color),
    '',
    paint(`environment: ${environmentLine(report.environment)}`, 'dim', color),
  );
  return `${lines.join('\n')}\n`;
}

/** "0.1% of one core (one idle connection)", or why there is no figure. */
export function idleCpuText(report: CalibrateReport): string {
  if (report.idleCpuPct === null) return report.interrupted ? 'not measured (interrupted)' : 'not measured';
  return `${report.idleCpuPct.toFixed(1)}% of one core (one idle connection)`;
}

function configured(us: number): string {
  return us === 0 ? '0' : fmtUsLabel(us);
}

function range(r: CalibrateRow): string {
  return r.addedMinUs == null || r.addedMaxUs == null ? '' : ` (${fmtUs(r.addedMinUs)}..${fmtUs(r.addedMaxUs)})`;
}

/** Auto mode: what the first pass measured with no compensation, and the table taken from it. */
function compensationLines(report: CalibrateReport, savedAs: string | undefined): string[] {
  if (!report.uncalibratedRows) return [];
  const before = report.uncalibratedRows
    .filter((r) => r.configuredRttUs)
    .map((r) => `${r.label} ${orDash(r.addedP50Us, fmtUs)} us (${orDash(r.errorPct, fmtSignedPct)})`);
  const points = (ps: Array<{ delayUs: number; compUs: number }>): string => ps.map((p) => `${fmtUsLabel(p.delayUs)} -> ${fmtUs(p.compUs)} us`).join(', ');
  const lines = [`first pass, no compensation: added p50 ${before.join(', ')}.`];
  if (report.compensationTable) {
    lines.push(`compensation table (one-way delay -> us taken off): ${points(report.compensationTable)}; rows above were measured with it.`);
  }
  if (report.uncheckedCompensation) {
    // What stopped it as the verdict words it (interruptedWords): Ctrl-C, SIGTERM, or a library caller's abort.
    const stoppedBy = /^interrupted(?: \([^)]*\))?/.exec(report.verdict)?.[0] ?? 'interrupted';
    lines.push(`left out of the table, their rows not measured with it before the run was ${stoppedBy}: ${points(report.uncheckedCompensation)}.`);
  }
  // Named by the file it is in: with --json calib.json given it said to run calibrate --json cal.json again.
  if (report.compensationTable && savedAs !== undefined) lines.push(`use it: redis-rtt proxy --compensate ${shellWord(savedAs)} ...`);
  else if (report.compensationTable) lines.push('use it: redis-rtt calibrate --json cal.json, then redis-rtt proxy --compensate cal.json ...');
  return lines;
}

/** A path as a POSIX shell reads it back: as is when plain, else in single quotes. */
function shellWord(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
