/**
 * The vs-toxiproxy report from raw per-run samples: pure functions, so the arithmetic (excess =
 * proxied - direct of the same round - L; median and range over rounds) is tested on its own.
 */
import { spread, type Spread } from '../../src/numbers/quantiles.js';
import type { Cell, Shape } from './plan.js';
import type { SelfFigures } from './targets.js';

export type { Spread };
export const PROXIES = ['redis-rtt', 'toxiproxy'] as const;
export type ProxyName = (typeof PROXIES)[number];
export type LatencyTarget = 'direct' | ProxyName;
export type ThroughputTarget = LatencyTarget | 'haproxy';

/** One redis-benchmark run of one target at one cell in one round. */
export interface LatencySample {
  round: number;
  cell: Cell;
  target: LatencyTarget;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** CPU the proxy's process used during the run / requests (absent for direct). */
  cpuUsPerRequest?: number;
  /** Times the proxy's threads were switched out while runnable during the run / requests (absent for direct). */
  preemptedPerRequest?: number;
  /** redis-rtt's /stats `self` over the run. */
  self?: SelfFigures;
}

export interface ThroughputSample {
  round: number;
  shape: Shape;
  target: ThroughputTarget;
  requests: number;
  rps: number;
  cpuUsPerRequest?: number;
}

/** The excess of one proxy at one cell, ms, and its CPU, each as median (min-max) over rounds. */
export interface ProxyExcess {
  p50Ms: Spread;
  p99Ms: Spread;
  maxMs: Spread;
  cpuUsPerRequest: Spread;
  /** Absent in a report written before it was measured. */
  preemptedPerRequest?: Spread;
}

export interface ExcessRow {
  cell: Cell;
  proxies: Record<ProxyName, ProxyExcess>;
  /** redis-rtt's own report over the same runs, ms: what it says beside what the client saw (proxies['redis-rtt']). */
  self: { lateP99Ms: Spread; lateMaxMs: Spread; addedP99Ms?: Spread; addedMaxMs?: Spread; roundTripP99Ms?: Spread; roundTripMaxMs?: Spread };
}

const sameCell = (a: Cell, b: Cell): boolean => a.delayMs === b.delayMs && a.clients === b.clients;

/** Per cell, each proxy's excess over direct in the same round minus the delay: p50, p99, max. */
export function excessTable(samples: readonly LatencySample[], cells: readonly Cell[]): ExcessRow[] {
  return cells.map((cell) => {
    const at = samples.filter((s) => sameCell(s.cell, cell));
    const direct = new Map(at.filter((s) => s.target === 'direct').map((s) => [s.round, s]));
    const runsOf = (target: ProxyName): LatencySample[] => at.filter((s) => s.target === target);
    const excess = (target: ProxyName): ProxyExcess => {
      const runs = runsOf(target);
      const over = (q: 'p50Ms' | 'p99Ms' | 'maxMs'): Spread =>
        spread(
          runs.map((s) => {
            const d = direct.get(s.round);
            if (!d) throw new Error(`no direct run in round ${s.round + 1} at ${cell.delayMs} ms, -c ${cell.clients}`);
            return s[q] - d[q] - cell.delayMs;
          }),
          3,
        );
      const preempted = runs.every((s) => s.preemptedPerRequest !== undefined) && runs.length > 0;
      return {
        p50Ms: over('p50Ms'),
        p99Ms: over('p99Ms'),
        maxMs: over('maxMs'),
        cpuUsPerRequest: spread(runs.map((s) => s.cpuUsPerRequest ?? 0), 1),
        ...(preempted ? { preemptedPerRequest: spread(runs.map((s) => s.preemptedPerRequest!), 3) } : {}),
      };
    };
    const selves = runsOf('redis-rtt').flatMap((s) => (s.self ? [s.self] : []));
    const ms = (xs: number[]): Spread => spread(xs.map((us) => us / 1000), 3);
    const added = selves.every((s) => s.addedP99Us !== undefined) && selves.length > 0;
    const roundTrip = selves.every((s) => s.roundTripP99Us !== undefined) && selves.length > 0;
    return {
      cell,
      proxies: { 'redis-rtt': excess('redis-rtt'), toxiproxy: excess('toxiproxy') },
      self: {
        lateP99Ms: ms(selves.map((s) => s.lateP99Us)),
        lateMaxMs: ms(selves.map((s) => s.lateMaxUs)),
        ...(added ? { addedP99Ms: ms(selves.map((s) => s.addedP99Us!)), addedMaxMs: ms(selves.map((s) => s.addedMaxUs ?? 0)) } : {}),
        ...(roundTrip ? { roundTripP99Ms: ms(selves.map((s) => s.roundTripP99Us!)), roundTripMaxMs: ms(selves.map((s) => s.roundTripMaxUs ?? 0)) } : {}),
      },
    };
  });
}

/** a's rps over b's, per round. */
export interface Ratio {
  of: ThroughputTarget;
  to: ThroughputTarget;
  perRound: Spread;
}

export interface ThroughputRow {
  shape: Shape;
  rps: Partial<Record<ThroughputTarget, Spread>>;
  cpuUsPerRequest: Partial<Record<ThroughputTarget, Spread>>;
  ratios: Ratio[];
}

const THROUGHPUT_ORDER: readonly ThroughputTarget[] = ['direct', 'redis-rtt', 'toxiproxy', 'haproxy'];

const RATIOS: ReadonlyArray<[ThroughputTarget, ThroughputTarget]> = [
  ['redis-rtt', 'toxiproxy'],
  ['redis-rtt', 'haproxy'],
  ['redis-rtt', 'direct'],
  ['toxiproxy', 'direct'],
];

/** Per shape: each target's rps and CPU per request, and the ratios between targets, round by round. */
export function throughputTable(samples: readonly ThroughputSample[], shapes: readonly Shape[]): ThroughputRow[] {
  return shapes.map((shape) => {
    const at = samples.filter((s) => s.shape.clients === shape.clients && s.shape.pipeline === shape.pipeline);
    const targets = THROUGHPUT_ORDER.filter((t) => at.some((s) => s.target === t));
    const rpsByRound = (t: ThroughputTarget): Map<number, number> => new Map(at.filter((s) => s.target === t).map((s) => [s.round, s.rps]));
    const row: ThroughputRow = { shape, rps: {}, cpuUsPerRequest: {}, ratios: [] };
    for (const t of targets) {
      const runs = at.filter((s) => s.target === t);
      row.rps[t] = spread(runs.map((s) => s.rps), 0);
      if (t !== 'direct') row.cpuUsPerRequest[t] = spread(runs.map((s) => s.cpuUsPerRequest ?? 0), 2);
    }
    for (const [of, to] of RATIOS) {
      if (!targets.includes(of) || !targets.includes(to)) continue;
      const a = rpsByRound(of);
      const b = rpsByRound(to);
      const per = [...a].flatMap(([round, x]) => (b.has(round) ? [x / b.get(round)!] : []));
      row.ratios.push({ of, to, perRound: spread(per, 2) });
    }
    return row;
  });
}

/** The load average at the start of a round; at or above this the figures are not a quiet machine's. */
export const LOAD_WARNING = 1.0;

export function loadWarnings(loadByRound: readonly number[]): string[] {
  return loadByRound.flatMap((load, r) =>
    load >= LOAD_WARNING ? [`round ${r + 1} started at load average ${load.toFixed(2)} (>= ${LOAD_WARNING.toFixed(1)}): not a quiet machine, figures for checking only`] : [],
  );
}
