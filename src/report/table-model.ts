/**
 * The comparison table as data (columns, link blocks, rows of formatted cells, footnotes), so the
 * terminal and HTML renderers lay out exactly the same content.
 */
import { isOk, type BenchReport, type BenchResult, type MeasuredResult } from '../results/types.js';
import {
  fmtBytes,
  fmtCount,
  fmtFactor,
  fmtMs,
  fmtSignedPct,
  fmtUs,
  fmtUsLabel,
  orDash,
} from '../format.js';
import { notesWithSetup } from './connection-setup.js';
import { ambiguousWorkloads, configLabel, groupByLink, type LinkGroup } from './order.js';

export interface Column {
  key: ColumnKey;
  title: string;
  align: 'left' | 'right';
}

export type ColumnKey =
  | 'link' | 'mode' | 'workload' | 'batch' | 'n' | 'median' | 'range' | 'ops' | 'waits' | 'roundTrips'
  | 'bytesUp' | 'bytesDown' | 'speedup' | 'model' | 'modelErr' | 'p50' | 'p99' | 'p999' | 'max' | 'where';

export interface TableRow {
  cells: string[];
  failed: boolean;
  /** Footnote numbers (1-based) that belong to this row, shown after the mode cell. */
  refs: number[];
}

export interface TableBlock {
  link: string;
  rows: TableRow[];
}

export interface TableModel {
  columns: Column[];
  blocks: TableBlock[];
  footnotes: string[];
}

const ALL_COLUMNS: Column[] = [
  { key: 'link', title: 'link', align: 'left' },
  { key: 'mode', title: 'mode', align: 'left' },
  { key: 'workload', title: 'op', align: 'left' },
  { key: 'batch', title: 'batch', align: 'right' },
  { key: 'n', title: 'N', align: 'right' },
  { key: 'median', title: 'median ms', align: 'right' },
  { key: 'range', title: 'range ms', align: 'right' },
  { key: 'ops', title: 'ops/s', align: 'right' },
  { key: 'waits', title: 'waits', align: 'right' },
  { key: 'roundTrips', title: 'round trips', align: 'right' },
  { key: 'bytesUp', title: 'up', align: 'right' },
  { key: 'bytesDown', title: 'down', align: 'right' },
  { key: 'speedup', title: 'vs seq', align: 'right' },
  { key: 'model', title: 'model ms', align: 'right' },
  { key: 'modelErr', title: 'err', align: 'right' },
  { key: 'p50', title: 'p50 us', align: 'right' },
  { key: 'p99', title: 'p99 us', align: 'right' },
  { key: 'p999', title: 'p99.9 us', align: 'right' },
  { key: 'max', title: 'max us', align: 'right' },
  { key: 'where', title: 'where the time went', align: 'left' },
];

export function buildTableModel(report: BenchReport): TableModel {
  // The op column earns its width only when more than one workload ran.
  const showWorkload = new Set(report.results.map((r) => r.workload)).size > 1;
  const columns = tailColumnsFirst(
    ALL_COLUMNS.filter((c) => (c.key !== 'workload' || showWorkload) && c.key !== 'p999'),
    report.results.some((r) => r.lossy),
  );
  const ambiguous = ambiguousWorkloads(report.results);
  const footnotes: string[] = [];
  const ref = (text: string): number => {
    const i = footnotes.indexOf(text);
    if (i >= 0) return i + 1;
    footnotes.push(text);
    return footnotes.length;
  };
  const shareWidth = whereShareWidth(report.results);
  const blocks = groupByLink(report.results).map((g) => ({
    link: g.link,
    rows: g.results.map((r, i) => {
      const refs: number[] = [];
      if (r.note) refs.push(ref(r.note));
      if (!isOk(r)) refs.push(ref(`${configLabel(r, ambiguous)} on ${r.link} failed: ${r.error}`));
      const values = isOk(r) ? cellsFor(r, shareWidth) : failedCells(r);
      values.link = linkCell(g, i);
      values.mode = r.mode;
      return { cells: columns.map((c) => values[c.key] ?? ''), failed: !isOk(r), refs };
    }),
  }));
  for (const note of notesWithSetup(report)) ref(note);
  return { columns, blocks, footnotes };
}

/**
 * On a lossy link the tail is the story (a lost segment costs an RTO, 200 ms and more): p99 and
 * p99.9 go right after the median. Without loss the columns stay as they were.
 */
function tailColumnsFirst(columns: Column[], lossy: boolean): Column[] {
  if (!lossy) return columns;
  const tail = [ALL_COLUMNS.find((c) => c.key === 'p99')!, ALL_COLUMNS.find((c) => c.key === 'p999')!];
  const rest = columns.filter((c) => c.key !== 'p99');
  const at = rest.findIndex((c) => c.key === 'median') + 1;
  return [...rest.slice(0, at), ...tail, ...rest.slice(at)];
}

/** First row names the link; the second says what it adds, using space that is blank anyway. */
function linkCell(g: LinkGroup, rowIndex: number): string {
  if (rowIndex === 0) return g.link;
  if (rowIndex !== 1) return '';
  if (!g.proxied) return '(no proxy)';
  return g.linkRttUs > 0 ? `(+${fmtUsLabel(g.linkRttUs)} RTT)` : '(proxy, +0)';
}

type Cells = Partial<Record<ColumnKey, string>>;

function failedCells(r: BenchResult): Cells {
  return { workload: r.workload, batch: String(r.batch), n: String(r.n), median: 'FAILED' };
}

function cellsFor(r: MeasuredResult, shareWidth: number): Cells {
  return {
    workload: r.workload,
    batch: String(r.batch),
    n: String(r.n),
    median: fmtMs(r.medianMs),
    range: `${fmtMs(r.minMs)}-${fmtMs(r.maxMs)}`,
    ops: fmtCount(r.opsPerSec),
    waits: String(r.waits),
    roundTrips: orDash(r.roundTrips, (v) => String(v)),
    bytesUp: orDash(r.bytesUp, fmtBytes),
    bytesDown: orDash(r.bytesDown, fmtBytes),
    speedup: orDash(r.speedup, fmtFactor),
    model: orDash(r.modelMs, fmtMs),
    modelErr: orDash(r.modelErrorPct, fmtSignedPct),
    p50: fmtUs(r.latencyUs.p50),
    p99: fmtUs(r.latencyUs.p99),
    p999: orDash(r.latencyUs.p999, fmtUs),
    max: fmtUs(r.latencyUs.max),
    where: whereTimeWent(r, shareWidth),
  };
}

/** The narrowest a share is printed ("85%", " 3%"), so a table of small shares keeps its old look. */
const SHARE_WIDTH = 3;

/**
 * "link 85% srv  3% cpu  9% prx 30%": shares of the median, each after a space and right-aligned in
 * `shareWidth` characters, so the sub-columns never run together (a share reaches 100% and more: the
 * parts overlap, and the proxy's CPU is apart from the median) and line up down the table when every
 * row gets the table's widest (`whereShareWidth`). prx (the link's proxy process) only when the
 * report has it.
 */
export function whereTimeWent(r: BenchResult, shareWidth = SHARE_WIDTH): string {
  const parts = isOk(r) ? whereShares(r) : [];
  if (parts.length === 0) return '-';
  return parts.map(([label, share]) => `${label} ${share.padStart(shareWidth)}`).join(' ');
}

/** The widest share over the results, at least SHARE_WIDTH: one width for the whole column. */
export function whereShareWidth(results: readonly BenchResult[]): number {
  return Math.max(SHARE_WIDTH, ...results.filter(isOk).flatMap((r) => whereShares(r).map(([, share]) => share.length)));
}

function whereShares(r: MeasuredResult): Array<[label: string, share: string]> {
  const total = r.medianMs;
  if (!(total > 0)) return [];
  const pct = (v: number): string => `${Math.round((Math.max(0, v) / total) * 100)}%`;
  const b = r.breakdown;
  return [
    ['link', pct(b.linkWaitMs)],
    ['srv', pct(b.serverMs)],
    ['cpu', pct(b.clientCpuMs)],
    ...(b.proxyCpuMs !== undefined ? [['prx', pct(b.proxyCpuMs)] as [string, string]] : []),
  ];
}
