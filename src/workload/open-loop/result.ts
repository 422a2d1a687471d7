import type { LatencyHistogram } from '../../numbers/histogram.js';
import type { OpenLoopRunOutcome } from './run.js';
import { CORRECTED_GAP_SHARE, CORRECTED_GAP_US, DRIVER_LATENESS_BOUND_US, SATURATION_SHARE, type MeasuredOpenLoopResult, type OpenLoopMode, type OpenLoopResult, type PercentilesUs } from './types.js';
import type { Arrival } from './schedule.js';
import { punctualCorrected } from './punctual.js';
import { sig3 } from '../../format.js';

export interface ResultContext {
  link: string;
  linkRttUs: number;
  mode: OpenLoopMode;
  arrival: Arrival;
  clients: number;
  ratePerSec?: number;
  durationUs: number;
  batchWindowUs: number;
  maxBatch: number;
  sloUs?: number;
}

export function percentilesUs(h: LatencyHistogram): PercentilesUs {
  return {
    p50: h.valueAtPercentile(50),
    p90: h.valueAtPercentile(90),
    p99: h.valueAtPercentile(99),
    p999: h.valueAtPercentile(99.9),
    p9999: h.valueAtPercentile(99.99),
    max: h.valueAtPercentile(100),
  };
}

/**
 * One JSON row from a finished run: the figures, the saturation verdict and the notes. A failed run
 * (`out.error`) keeps its counts and the driver's own figures; those made of its replies are null.
 */
export function openLoopResult(c: ResultContext, out: OpenLoopRunOutcome): OpenLoopResult {
  const measured = measuredOpenLoopResult(c, out);
  if (out.error === undefined) return measured;
  return {
    ...measured,
    achievedRate: null,
    correctedLatencyUs: null,
    uncorrectedLatencyUs: null,
    correctedP99FirstHalfUs: null,
    correctedP99SecondHalfUs: null,
    correctedMeanUs: null,
    uncorrectedMeanUs: null,
    roundTrips: null,
    punctualCorrectedP99Us: null,
    measuredConcurrency: null,
    perClientRate: null,
    saturated: null,
    histograms: null,
    error: out.error,
  };
}

function measuredOpenLoopResult(c: ResultContext, out: OpenLoopRunOutcome): MeasuredOpenLoopResult {
  const l = out.ledger;
  const durationS = c.durationUs / 1e6;
  // Answers per second of the run: over the duration, or up to the last reply when the backlog
  // drained past it (then it is the link's capacity, not the offered rate). A run stopped on
  // request counts up to its last reply: the rest of the schedule never came due.
  const ranS = Math.max(0, (l.lastCompletionNs - l.startNs) / 1e9);
  const aborted = out.stopped === 'aborted';
  const spanS = aborted ? Math.min(durationS, ranS) : Math.max(durationS, ranS);
  const achievedRate = spanS > 0 ? l.completed / spanS : 0;
  const corrected = percentilesUs(l.corrected);
  const late = l.lateness.summary();
  const wait = l.batchWait.summary();
  const connWait = l.connectionWait.summary();
  const uncorrected = percentilesUs(l.uncorrected);
  const punctualP99Us = l.serviceTimes ? punctualCorrected(l.serviceTimes, c.clients).valueAtPercentile(99) : null;
  const driverSaturated = late.p99 > DRIVER_LATENESS_BOUND_US;
  let saturated: OpenLoopResult['saturated'] = null;
  // Against the rate the schedule offered, not the target: a short Poisson schedule draws more or
  // fewer commands than rate x duration (100/s over 1 s can draw 84), and a link that answered all
  // of them on time is not saturated.
  const offeredRate = durationS > 0 ? out.scheduled / durationS : 0;
  if (c.ratePerSec !== undefined && !aborted && achievedRate < SATURATION_SHARE * offeredRate) saturated = 'rate';
  else if (c.sloUs !== undefined && corrected.p99 > c.sloUs) saturated = 'slo';
  const notes: string[] = [];
  const gapUs = corrected.p99 - uncorrected.p99;
  const gapBoundUs = Math.max(CORRECTED_GAP_SHARE * uncorrected.p99, CORRECTED_GAP_US);
  if (driverSaturated) notes.push(driverNote(late.p99, corrected.p99, out.error === undefined ? punctualP99Us : null));
  if (out.error === undefined && punctualP99Us !== null && gapUs > gapBoundUs) {
    const lateCostUs = Math.max(0, corrected.p99 - punctualP99Us);
    notes.push(
      `corrected p99 is ${gapUs} us over uncorrected; sent on time, it would have been ${punctualP99Us} us: ` +
        `the driver's lateness cost ${lateCostUs} us of it, the wait for a free connection ${gapUs - lateCostUs} us ` +
        `(connection wait p99 ${connWait.p99} us), which more connections or --modes mux shorten and a punctual driver cannot`,
    );
  }
  if (out.error === undefined && c.mode === 'mux' && c.batchWindowUs === 0 && gapUs > gapBoundUs) {
    // A mux command is written when it is seen due, on a connection that never makes it wait.
    notes.push(`corrected p99 is ${gapUs} us over uncorrected: a mux command waits for no connection, so that is the driver's lateness (p99 ${late.p99} us)`);
  }
  if (out.stopped === 'drain-limit') notes.push(`${out.unsent} commands still in the backlog at the drain limit were never sent: the corrected tail is a lower bound`);
  if (out.stopped === 'aborted') notes.push(`stopped on request: ${out.unsent} commands not sent`);
  const endNs = l.startNs + l.durationNs;
  return {
    link: c.link,
    linkRttUs: c.linkRttUs,
    mode: c.mode,
    arrival: c.ratePerSec === undefined ? 'closed' : c.arrival,
    clients: c.clients,
    targetRate: c.ratePerSec ?? null,
    achievedRate: round(achievedRate, 1),
    durationS,
    drainS: round(Math.max(0, l.lastCompletionNs - endNs) / 1e9, 3),
    scheduled: out.scheduled,
    sent: l.sent,
    completed: l.completed,
    failed: l.failed,
    unsent: out.unsent,
    correctedLatencyUs: corrected,
    uncorrectedLatencyUs: uncorrected,
    correctedP99FirstHalfUs: p99OrNull(l.correctedFirstHalf),
    correctedP99SecondHalfUs: p99OrNull(l.correctedSecondHalf),
    correctedMeanUs: Math.round(l.corrected.summary().mean),
    uncorrectedMeanUs: Math.round(l.uncorrected.summary().mean),
    batchWindowUs: c.batchWindowUs,
    maxBatch: c.maxBatch,
    batches: l.batchesSent,
    roundTrips: out.roundTrips,
    batchWaitUs: { p50: wait.p50, p99: wait.p99, mean: Math.round(wait.mean) },
    latenessUs: { p50: late.p50, p99: late.p99, max: late.max },
    connectionWaitUs: { p50: connWait.p50, p99: connWait.p99, max: connWait.max },
    punctualCorrectedP99Us: punctualP99Us,
    driverSaturated,
    backlog: { bucketMs: l.bucketNs / 1e6, max: l.backlogMax, peak: l.peakBacklog },
    littleConcurrency: c.ratePerSec !== undefined && c.linkRttUs > 0 ? round(c.ratePerSec * (c.linkRttUs / 1e6), 2) : null,
    measuredConcurrency: round(l.meanOutstanding(), 2),
    // Three significant digits: 1000 connections at 30/s in all run at 0.03/s each, not 0.
    perClientRate: Number(sig3(achievedRate / c.clients)),
    processCpuPct: out.processCpuPct,
    ...(out.proxyCpuPct !== null ? { proxyCpuPct: out.proxyCpuPct } : {}),
    saturated,
    histograms: { corrected: l.corrected.encode(), uncorrected: l.uncorrected.encode() },
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

/**
 * The driver's lateness passed the bound. Where the punctual replay applies and puts the corrected
 * p99 within max(5%, 100 us) of what was measured, the lateness did not set the tail (an
 * over-capacity link's backlog did, or the wait for a connection): the note says so instead of
 * blaming the driver.
 */
function driverNote(lateP99Us: number, correctedP99Us: number, punctualP99Us: number | null): string {
  const head = `driver saturated: its own scheduling lateness p99 ${lateP99Us} us is past ${DRIVER_LATENESS_BOUND_US} us`;
  const costUs = punctualP99Us === null ? null : Math.max(0, correctedP99Us - punctualP99Us);
  if (costUs !== null && costUs <= Math.max(CORRECTED_GAP_SHARE * correctedP99Us, CORRECTED_GAP_US)) {
    return `${head}, but sent on time its corrected p99 would have been ${punctualP99Us} us (${costUs} us less): the link, not the driver's lateness, set this run's tail`;
  }
  return `${head}, so the driver, not the link, limited this run`;
}

/** A half with no answered command (a run stopped early, a backlog never sent) has no p99, not one of 0. */
function p99OrNull(h: LatencyHistogram): number | null {
  return h.count === 0 ? null : h.valueAtPercentile(99);
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
