/** Result shapes of an open-loop `bench` run (`--rate`, or `--clients` without it). Plain JSON. */
import type { ConnectionSetup, Environment } from '../../results/types.js';
import type { Arrival } from './schedule.js';
import type { StopSignalName } from '../../results/interrupted.js';

/**
 * Open-loop shapes: plain commands with one in flight per connection, as a pooled client sends them
 * (seq); plain commands written when due whatever the connection has in flight, as a multiplexing
 * client sends them (mux); ioredis auto-pipelining (auto). seq and mux take a window's batches too.
 */
export type OpenLoopMode = 'seq' | 'mux' | 'auto';
export const OPEN_LOOP_MODES: readonly OpenLoopMode[] = ['seq', 'mux', 'auto'];

export interface PercentilesUs {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  p9999: number;
  max: number;
}

export interface OpenLoopResult {
  link: string;
  linkRttUs: number;
  mode: OpenLoopMode;
  /** Poisson or uniform arrivals; 'closed' for C closed loops (no --rate). */
  arrival: Arrival | 'closed';
  clients: number;
  /** Commands per second asked for; null for closed loops. */
  targetRate: number | null;
  /*
   * The figures made of the replies (rates, latencies, concurrency, round trips, histograms) are null
   * when the run failed (`error`): the table says FAILED, and a 0 would read as a measurement. The
   * counts (scheduled ... unsent) and the driver's own figures stay. `MeasuredOpenLoopResult` is a
   * result without an error, whose figures are all there (as `MeasuredResult` is for closed loops).
   */
  /** Commands answered per second: over the duration, or up to the last reply if the backlog drained past it. */
  achievedRate: number | null;
  durationS: number;
  /** From the end of the duration to the last reply (the backlog draining). */
  drainS: number;
  scheduled: number;
  sent: number;
  completed: number;
  failed: number;
  /** Due but never sent: left in the backlog when the drain limit or Ctrl-C stopped the run. */
  unsent: number;
  /** From each command's intended send time to its reply: counts the queueing. */
  correctedLatencyUs: PercentilesUs | null;
  /** From each command's actual send time to its reply: what a closed-loop driver would report. */
  uncorrectedLatencyUs: PercentilesUs | null;
  /**
   * Corrected p99 of the commands intended in the first and the second half of the duration; null
   * for a half with no answered command (a run stopped early) and for a failed run.
   */
  correctedP99FirstHalfUs: number | null;
  correctedP99SecondHalfUs: number | null;
  /** Mean corrected latency (Little's law uses the mean). */
  correctedMeanUs: number | null;
  /** Mean uncorrected latency: the service time S of the queueing model. */
  uncorrectedMeanUs: number | null;
  /** 0 = each command sent alone. */
  batchWindowUs: number;
  /** Most commands per batch (B). */
  maxBatch: number;
  /** Writes the driver made (one per batch, or per command without a window). */
  batches: number;
  /** Round trips the proxy counted; null on `direct` and when failed. */
  roundTrips: number | null;
  /** Time a command waited for its batch to close (0 without a window). */
  batchWaitUs: { p50: number; p99: number; mean: number };
  /** The generator's own scheduling lateness: when it noticed a command was due - when it was due. */
  latenessUs: { p50: number; p99: number; max: number };
  /**
   * The wait for a free connection: from when a command joined the backlog (seen due, or its batch
   * closed) to its write. Corrected latency counts it; it is the link's queueing, not the driver's.
   * Absent in older reports.
   */
  connectionWaitUs?: { p50: number; p99: number; max: number };
  /**
   * The corrected p99 had every command been written at its due time, replayed from the run's own
   * service times (punctual.ts); null where the replay does not apply (a window, auto-pipelining,
   * closed loops). Corrected p99 minus this is what the driver's lateness cost. Absent in older reports.
   */
  punctualCorrectedP99Us?: number | null;
  /**
   * The lateness p99 passed DRIVER_LATENESS_BOUND_US. The row's note says whether that set the tail
   * (the punctual replay's p99 against the measured one) or the link did.
   */
  driverSaturated: boolean;
  /** Largest backlog (due, not yet sent) per bucket of bucketMs, from the start. */
  backlog: { bucketMs: number; max: number[]; peak: number };
  /** Little's law with the link's RTT: target rate x RTT, the commands in flight an unqueued link holds. */
  littleConcurrency: number | null;
  /** Time-average of commands outstanding (due, not yet answered), measured. */
  measuredConcurrency: number | null;
  /** Achieved rate per connection. */
  perClientRate: number | null;
  /** The driver process's CPU over the run (the generator and its clients; each proxy runs in a process of its own), percent of one core. */
  processCpuPct: number;
  /** The link's proxy process's CPU over the run, percent of one core; absent on `direct` (and in older reports). */
  proxyCpuPct?: number;
  /** Achieved < 95% of target ('rate'), or corrected p99 past --slo ('slo'); null within both, and when failed. */
  saturated: 'rate' | 'slo' | null;
  /** HdrHistogram compressed base64 (integer us), corrected and uncorrected. */
  histograms: { corrected: string; uncorrected: string } | null;
  note?: string;
  /** The first wrong reply or failure: the run failed. */
  error?: string;
}

/** An open-loop result without an error: every figure a failed run leaves null is there. */
export type MeasuredOpenLoopResult = OpenLoopResult & {
  achievedRate: number;
  correctedLatencyUs: PercentilesUs;
  uncorrectedLatencyUs: PercentilesUs;
  correctedMeanUs: number;
  uncorrectedMeanUs: number;
  measuredConcurrency: number;
  perClientRate: number;
  histograms: { corrected: string; uncorrected: string };
};

/** An open-loop run that produced figures; a failed one keeps its error, its counts and the driver's figures. */
export function isOpenLoopOk(r: OpenLoopResult): r is MeasuredOpenLoopResult {
  return r.error === undefined || r.error === '';
}

export interface OpenLoopReport {
  kind: 'open-loop';
  environment: Environment;
  /** --slo in us, when given. */
  sloUs: number | null;
  results: OpenLoopResult[];
  notes: string[];
  /** Every connection opens before its runs are timed: what a new one would cost per link (absent in older reports). */
  connectionSetup?: ConnectionSetup;
  /**
   * The failure outside any run that ended the sweep (Redis gone between runs, a link that would not
   * open), as `link: message`: the results before it stand, the runs after it were not started.
   */
  error?: string;
  /**
   * Ctrl-C (or SIGTERM, the signal) stopped the sweep: `results` hold the runs that finished and the
   * one in flight up to the stop (its `unsent` the commands never sent, its rate over the time it ran);
   * the runs after it are absent. Before, only a note said so.
   */
  interrupted?: true;
  /** Which signal stopped it (SIGINT for Ctrl-C, SIGTERM, SIGHUP), with `interrupted`. */
  stoppedBy?: StopSignalName;
}

/** p99 scheduling lateness past this means the generator could not keep its own schedule. */
export const DRIVER_LATENESS_BOUND_US = 1000;
/**
 * A corrected p99 more than this share of the uncorrected one over it (and more than
 * CORRECTED_GAP_US) gets a note saying how much of the gap the driver's lateness made.
 */
export const CORRECTED_GAP_SHARE = 0.05;
export const CORRECTED_GAP_US = 100;
/** Below this share of the target rate a run counts as saturated. */
export const SATURATION_SHARE = 0.95;
