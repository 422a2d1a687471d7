/**
 * Pure pieces of a calibration: a row from samples, the compensation table taken from rows, the
 * tolerance and the verdict. No sockets, no processes.
 */
import { cpus } from 'node:os';
import type { CompensationPoint } from '../link/compensation.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { CalibrateRow } from '../results/types.js';
import { quantile } from '../numbers/quantiles.js';

/**
 * Half of each RTT's measured excess, per one-way delay: what the proxy must take off each
 * direction for the added RTT to come out as configured. Never negative (a link can be slowed to
 * match, but the uncompensated excess is never below zero in practice).
 */
export function tableFrom(rows: CalibrateRow[]): CompensationPoint[] {
  return rows
    .filter((r) => r.configuredRttUs !== null && r.configuredRttUs > 0 && r.addedP50Us !== null)
    .map((r) => ({
      delayUs: r.configuredRttUs! / 2,
      compUs: Math.min(r.configuredRttUs! / 2, Math.max(0, Math.round((r.addedP50Us! - r.configuredRttUs!) / 2))),
    }))
    .sort((a, b) => a.delayUs - b.delayUs);
}

export function row(label: string, configuredRttUs: number | null, rtts: number[], base: number[], cpuPct: number | null): CalibrateRow {
  const h = new LatencyHistogram();
  for (const x of rtts) h.record(x);
  const p50 = quantile(rtts, 0.5);
  const p99 = quantile(rtts, 0.99);
  const isDirect = configuredRttUs === null;
  const addedP50Us = isDirect ? null : round1(p50 - quantile(base, 0.5));
  const addedP99Us = isDirect ? null : round1(p99 - quantile(base, 0.99));
  const errorPct =
    isDirect || configuredRttUs === 0 || addedP50Us === null ? null : round1(((addedP50Us - configuredRttUs) / configuredRttUs) * 100);
  return {
    label,
    configuredRttUs,
    samples: rtts.length,
    rttP50Us: round1(p50),
    rttP99Us: round1(p99),
    addedP50Us,
    addedP99Us,
    errorPct,
    proxyCpuPct: cpuPct === null ? null : round1(cpuPct),
    histogram: h.encode(),
  };
}

/** The target: added p50 within max(5%, 20 us) of the configured RTT. */
export const allowedUs = (rttUs: number): number => Math.max(0.05 * rttUs, 20);

export function withinTolerance(r: CalibrateRow): boolean {
  if (r.configuredRttUs === null || r.configuredRttUs === 0 || r.addedP50Us === null) return true;
  return Math.abs(r.addedP50Us - r.configuredRttUs) <= allowedUs(r.configuredRttUs);
}

/** What the proxy aims for with no delay: its own added PING round trip at p50 (docs/precision.md). */
export const HOP_TARGET_US = 60;

export function verdict(rows: CalibrateRow[], uncalibrated?: CalibrateRow[]): string {
  const judge = (rs: CalibrateRow[]): string[] => {
    const parts: string[] = [];
    for (const r of rs) {
      if (r.configuredRttUs === null || r.configuredRttUs === 0 || r.addedP50Us === null) continue;
      const errUs = r.addedP50Us - r.configuredRttUs;
      parts.push(`${r.label}: ${withinTolerance(r) ? 'ok' : 'OFF'} (${errUs >= 0 ? '+' : ''}${errUs.toFixed(0)} us at p50, allowed +-${allowedUs(r.configuredRttUs).toFixed(0)})`);
    }
    return parts;
  };
  const zero = rows.find((r) => r.configuredRttUs === 0);
  // Only the clauses that have something to say: --rtts 0 alone has no delayed row to judge.
  const clauses: string[] = [];
  if (zero?.addedP50Us != null) {
    clauses.push(`proxy hop with no delay adds ${zero.addedP50Us.toFixed(0)} us at p50 (${zero.addedP50Us < HOP_TARGET_US ? 'ok' : 'over'}, target under ${HOP_TARGET_US} us)`);
  }
  const judged = judge(rows);
  if (judged.length > 0) clauses.push(`${uncalibrated ? 'with the calibrated table: ' : ''}${judged.join('; ')}`);
  const without = uncalibrated ? judge(uncalibrated) : [];
  const before = without.length > 0 ? ` Without the table: ${without.join('; ')}.` : '';
  const head = clauses.length > 0 ? `${clauses.join('; ')}. ` : '';
  return `${head}Tolerance: max(5%, 20 us). ${cpus().length} CPUs.${before}`;
}

export const round1 = (x: number): number => Math.round(x * 10) / 10;
