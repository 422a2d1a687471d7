/** Result shapes of an open-loop `bench` run (`--rate`, or `--clients` without it). Plain JSON. */
import type { ConnectionSetup, Environment } from '../../results/types.js';
import type { Arrival } from './schedule.js';

/** Open-loop shapes: plain commands (one in flight per connection, or a window's batch) or ioredis auto-pipelining. */
export type OpenLoopMode = 'seq' | 'auto';
export const OPEN_LOOP_MODES: readonly OpenLoopMode[] = ['seq', 'auto'];

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
  /** Commands answered per second: over the duration, or up to the last reply if the backlog drained past it. */
  achievedRate: number;
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
  correctedLatencyUs: PercentilesUs;
  /** From each command's actual send time to its reply: what a closed-loop driver would report. */
  uncorrectedLatencyUs: PercentilesUs;
  /** Corrected p99 of the commands intended in the first and the second half of the duration. */
  correctedP99FirstHalfUs: number;
  correctedP99SecondHalfUs: number;
  /** Mean corrected latency (Little's law uses the mean). */
  correctedMeanUs: number;
  /** Mean uncorrected latency: the service time S of the queueing model. */
  uncorrectedMeanUs: number;
  /** 0 = each command sent alone. */
  batchWindowUs: number;
  /** Most commands per batch (B). */
  maxBatch: number;
  /** Writes the driver made (one per batch, or per command without a window). */
  batches: number;
  /** Round trips the proxy counted; null on `direct`. */
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
  /** The lateness p99 passed DRIVER_LATENESS_BOUND_US: the driver, not the link, limited this run. */
  driverSaturated: boolean;
  /** Largest backlog (due, not yet sent) per bucket of bucketMs, from the start. */
  backlog: { bucketMs: number; max: number[]; peak: number };
  /** Little's law with the link's RTT: target rate x RTT, the commands in flight an unqueued link holds. */
  littleConcurrency: number | null;
  /** Time-average of commands outstanding (due, not yet answered), measured. */
  measuredConcurrency: number;
  /** Achieved rate per connection. */
  perClientRate: number;
  /** The driver process's CPU over the run (the generator and its clients; each proxy runs in a process of its own), percent of one core. */
  processCpuPct: number;
  /** The link's proxy process's CPU over the run, percent of one core; absent on `direct` (and in older reports). */
  proxyCpuPct?: number;
  /** Achieved < 95% of target ('rate'), or corrected p99 past --slo ('slo'); null within both. */
  saturated: 'rate' | 'slo' | null;
  /** HdrHistogram compressed base64 (integer us), corrected and uncorrected. */
  histograms: { corrected: string; uncorrected: string };
  note?: string;
  error?: string;
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
