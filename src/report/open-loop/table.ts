/**
 * Text tables of an open-loop report (pure: report in, text out). Three tables, because one row
 * would not fit a terminal: latency (corrected next to uncorrected), load (rate, concurrency,
 * backlog, the driver's own lateness, saturation), and batching (only when windows were compared).
 */
import type { OpenLoopReport, OpenLoopResult } from '../../workload/open-loop/types.js';
import { DRIVER_LATENESS_BOUND_US, isOpenLoopOk } from '../../workload/open-loop/types.js';
import { notesWithSetup } from '../connection-setup.js';
import { fmtCount, fmtUsLabel, sig3 } from '../../format.js';
import { renderGrid, RULE, type Align, type GridRow } from '../../text-grid.js';

export interface OpenLoopTableOptions {
  color?: boolean;
}

export function rowLabel(r: OpenLoopResult): string {
  const window = r.batchWindowUs > 0 ? ` w=${fmtUsLabel(r.batchWindowUs)}` : '';
  return `${r.link} ${r.mode} C=${r.clients}${window}`;
}

const rate = (x: number | null): string => (x === null ? 'closed' : fmtCount(x));
const us = (x: number): string => fmtUsLabel(x);
/** A figure a failed run has none of (null) is an empty cell, as in the closed-loop table. */
const orEmpty = <T>(x: T | null, f: (v: T) => string): string => (x === null ? '' : f(x));

export function latencyRows(results: readonly OpenLoopResult[]): { head: string[]; align: Align[]; rows: string[][] } {
  const head = ['configuration', 'target/s', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'max', '|', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'max'];
  const rows = results.map((r) => {
    if (!isOpenLoopOk(r)) return [rowLabel(r), rate(r.targetRate), 'FAILED', '', '', '', '', '', '|', '', '', '', '', '', ''];
    const c = r.correctedLatencyUs;
    const u = r.uncorrectedLatencyUs;
    return [rowLabel(r), rate(r.targetRate), us(c.p50), us(c.p90), us(c.p99), us(c.p999), us(c.p9999), us(c.max), '|', us(u.p50), us(u.p90), us(u.p99), us(u.p999), us(u.p9999), us(u.max)];
  });
  return { head, align: ['left', ...Array<Align>(14).fill('right')], rows };
}

export function loadRows(results: readonly OpenLoopResult[]): { head: string[]; align: Align[]; rows: string[][] } {
  const head = ['configuration', 'target/s', 'achieved/s', 'per conn/s', 'p99 1st half', 'p99 2nd half', 'backlog peak', 'unsent', 'rate x RTT', 'outstanding', 'late p99', 'cpu', 'proxy cpu', 'saturated'];
  const rows = results.map((r) => [
    rowLabel(r),
    rate(r.targetRate),
    orEmpty(r.achievedRate, fmtCount),
    orEmpty(r.perClientRate, perConnection),
    orEmpty(r.correctedP99FirstHalfUs, us),
    orEmpty(r.correctedP99SecondHalfUs, us),
    fmtCount(r.backlog.peak),
    fmtCount(r.unsent),
    r.littleConcurrency === null ? '-' : String(r.littleConcurrency),
    orEmpty(r.measuredConcurrency, String),
    us(r.latenessUs.p99),
    `${Math.round(r.processCpuPct)}%`,
    r.proxyCpuPct === undefined ? '-' : `${Math.round(r.proxyCpuPct)}%`,
    saturatedCell(r),
  ]);
  return { head, align: ['left', ...Array<Align>(13).fill('right')], rows };
}

/** Each run's failure and note, named by its row's label (several runs share a link). */
export function rowNotes(results: readonly OpenLoopResult[]): string[] {
  return results.flatMap((r) => [...(r.error ? [`${rowLabel(r)}: FAILED: ${r.error}`] : []), ...(r.note ? [`${rowLabel(r)}: ${r.note}`] : [])]);
}

/** The run's verdict, and "driver" beside it when the driver was late too (the one does not hide the other). */
function saturatedCell(r: OpenLoopResult): string {
  if (r.error) return 'FAILED';
  const verdict = r.saturated === 'rate' ? 'yes (rate)' : r.saturated === 'slo' ? 'yes (slo)' : null;
  if (!r.driverSaturated) return verdict ?? 'no';
  return verdict === null ? 'driver' : `${verdict}, driver`;
}

/** Batching windows next to the round trips they saved (against window 0 of the same link, shape, C and rate). */
export function batchRows(results: readonly OpenLoopResult[]): { head: string[]; align: Align[]; rows: string[][] } | null {
  if (!results.some((r) => r.batchWindowUs > 0)) return null;
  const head = ['configuration', 'target/s', 'B', 'writes', 'round trips', 'saved', 'batch wait p50', 'p99', 'corrected p99', 'vs no window'];
  const rows = results.map((r) => {
    const head = [rowLabel(r), rate(r.targetRate), String(r.maxBatch), fmtCount(r.batches)];
    const waits = [us(r.batchWaitUs.p50), us(r.batchWaitUs.p99)];
    if (!isOpenLoopOk(r)) return [...head, '', '', ...waits, 'FAILED', ''];
    const base = results.filter(isOpenLoopOk).find(
      (b) => b.batchWindowUs === 0 && b.link === r.link && b.mode === r.mode && b.clients === r.clients && b.targetRate === r.targetRate,
    );
    const trips = r.roundTrips ?? r.batches;
    const baseTrips = base ? (base.roundTrips ?? base.batches) : null;
    const saved = baseTrips !== null && baseTrips > 0 ? `${Math.round((1 - trips / baseTrips) * 100)}%` : '-';
    const delta = base ? signedUs(r.correctedLatencyUs.p99 - base.correctedLatencyUs.p99) : '-';
    return [...head, r.roundTrips === null ? '-' : fmtCount(r.roundTrips), saved, ...waits, us(r.correctedLatencyUs.p99), delta];
  });
  return { head, align: ['left', ...Array<Align>(9).fill('right')], rows };
}

/** One line per series with windows: which window gave the lowest corrected p99, against none. */
export function batchReading(results: readonly OpenLoopResult[]): string[] {
  const lines: string[] = [];
  const keyOf = (r: OpenLoopResult): string => `${r.link} ${r.mode} C=${r.clients} ${r.targetRate ?? 'closed'}/s`;
  const measured = results.filter(isOpenLoopOk);
  for (const key of [...new Set(measured.filter((r) => r.batchWindowUs > 0).map(keyOf))]) {
    const group = measured.filter((r) => keyOf(r) === key);
    const none = group.find((r) => r.batchWindowUs === 0);
    const best = [...group].sort((a, b) => a.correctedLatencyUs.p99 - b.correctedLatencyUs.p99)[0];
    if (!none || !best) continue;
    lines.push(
      best === none || best.batchWindowUs === 0
        ? `${key}: no window pays; the lowest corrected p99 (${us(none.correctedLatencyUs.p99)}) is without one`
        : `${key}: a ${us(best.batchWindowUs)} window pays: corrected p99 ${us(best.correctedLatencyUs.p99)} against ${us(none.correctedLatencyUs.p99)} without, ${fmtCount(best.batches)} writes instead of ${fmtCount(none.batches)}`,
    );
  }
  return lines;
}

function signedUs(x: number): string {
  return `${x < 0 ? '-' : '+'}${fmtUsLabel(Math.abs(x))}`;
}

export function renderOpenLoopTable(report: OpenLoopReport, opts: OpenLoopTableOptions = {}): string {
  const color = opts.color ?? false;
  const out: string[] = [];
  const grid = (title: string, t: { head: string[]; align: Align[]; rows: string[][] }, failed: boolean[]): void => {
    const rows: GridRow[] = [{ cells: t.head, tone: 'bold' }, RULE, ...t.rows.map((cells, i) => ({ cells, tone: failed[i] ? ('fail' as const) : ('plain' as const) }))];
    out.push(title, ...renderGrid(rows, t.align, { color }), '');
  };
  const failed = report.results.map((r) => r.error !== undefined);
  grid('Latency per command: corrected (from the intended send time) | uncorrected (from the actual send)', latencyRows(report.results), failed);
  grid('Load', loadRows(report.results), failed);
  const batches = batchRows(report.results);
  if (batches) {
    grid('Batching windows', batches, failed);
    out.push(...batchReading(report.results), '');
  }
  const lines = [...notesWithSetup(report), ...rowNotes(report.results)];
  lines.push(
    `rate x RTT is the concurrency Little's law predicts on an unqueued link; outstanding is the measured time-average of commands due and not yet answered. ` +
      `late p99 is the driver's own scheduling lateness ("driver" past ${DRIVER_LATENESS_BOUND_US} us); cpu is the driver process alone (generator and clients) in percent of one core; proxy cpu is the link's proxy, which runs in a process of its own (- on direct; older reports have none, and their cpu includes the proxies).` +
      (report.sloUs !== null ? ` --slo ${fmtUsLabel(report.sloUs)}.` : ''),
  );
  out.push(...lines);
  return out.join('\n');
}

/** A connection's rate: below 100/s with its fraction (0.03/s is not 0), counted in k above 10k as the others. */
function perConnection(ratePerSec: number): string {
  return ratePerSec < 100 ? sig3(ratePerSec) : fmtCount(ratePerSec);
}
