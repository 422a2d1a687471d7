/** Result shapes of `redis-rtt bench` / `demo` (the JSON file) and `calibrate`. Plain JSON. */
import type { StopSignalName } from './interrupted.js';

export type Mode = 'seq' | 'pipeline' | 'multi' | 'mget' | 'mset' | 'lua' | 'auto';
export const MODES: readonly Mode[] = ['seq', 'pipeline', 'multi', 'mget', 'mset', 'lua', 'auto'];
export type Workload = 'incr' | 'set' | 'get';
export const WORKLOADS: readonly Workload[] = ['incr', 'set', 'get'];

export interface Environment {
  node: string;
  redis: string;
  ioredis: string;
  redisRtt: string;
  cpus: number;
  cpuModel: string;
  platform: string;
  /** ISO time the run started. */
  startedAt: string;
}

export interface Method {
  repeat: number;
  warmup: number;
  /** "rotated": configuration order shifts by one each repetition. */
  order: 'rotated';
  /** What one timed sample covers. */
  timing: string;
  /** The client's warm-up straight to Redis before any sample (driver-warmup.ts); absent when off. */
  driverWarmup?: { shapes: number; ops: number; ms: number };
  /**
   * Where the links' proxies ran: each in a process of its own, so `clientCpuMs` is the driver
   * alone. Absent in older reports, whose drivers ran them in their own process.
   */
  proxies?: 'own-process';
}

/**
 * Where one configuration's median time went (milliseconds). The parts are measured separately and
 * may overlap: the driver's CPU time runs while link waits tick (and, in reports from before the
 * proxies had processes of their own, included their work), so link + server + CPU can exceed the
 * median. `otherMs` is what the three leave unexplained, clamped at 0: never negative, 0 when they
 * overlap. `proxyCpuMs` is apart from all of them: the link's proxy runs in a process of its own.
 */
export interface Breakdown {
  /** Round trips x link RTT. */
  linkWaitMs: number;
  /** Redis's own time, from INFO commandstats usec deltas. */
  serverMs: number;
  /** The driver process's CPU time (user+system) during the sample: the driver alone, no proxy. */
  clientCpuMs: number;
  /** max(0, median - link - server - CPU). */
  otherMs: number;
  /** The link's proxy process's CPU time (user+system, all its threads) during the sample; absent on `direct` and in older reports. */
  proxyCpuMs?: number;
}

export interface BenchResult {
  /** Link name as given (direct, local, same-az, rtt=2ms/jitter=0.2ms ...). */
  link: string;
  /** Configured RTT of that link in microseconds (0 for direct and local). */
  linkRttUs: number;
  mode: Mode;
  workload: Workload;
  /** Commands per batch (1 for seq; in-flight commands for auto). */
  batch: number;
  /** Operations per sample. */
  n: number;
  /** Timed repetitions actually kept (a failed configuration: those that finished before it failed). */
  repeat: number;
  samplesMs: number[];
  /*
   * The figures below are null when the configuration failed (`error`): the table says FAILED, and a
   * 0 would read as a measurement. Reports from before kept zeros there. `MeasuredResult` is a result
   * without an error, whose figures are all there.
   */
  medianMs: number | null;
  minMs: number | null;
  maxMs: number | null;
  opsPerSec: number | null;
  /** ceil(n / batch): the waits the round-trip arithmetic predicts. */
  waits: number;
  /** Round trips the proxy saw per sample (median); null on `direct` (no proxy to count) and when failed. */
  roundTrips: number | null;
  bytesUp: number | null;
  bytesDown: number | null;
  /** seq median / this median, on the same link and workload; null when seq did not run. */
  speedup: number | null;
  /** waits x link RTT + the same mode/batch's median on `local`; null when local did not run. */
  modelMs: number | null;
  modelErrorPct: number | null;
  latencyUs: LatencyUs | null;
  /** The link loses segments (`--links cross-az/loss=0.5%`): the table puts p99 and p99.9 next to the median. */
  lossy?: true;
  /** HdrHistogram compressed base64 of latency per wait (integer microseconds). */
  histogram: string | null;
  breakdown: Breakdown | null;
  /** Why this cell differs from the request (lowered n, fewer repetitions, skipped...). */
  note?: string;
  /** The failure, when this configuration failed verification. */
  error?: string;
}

/** A result without an error: every figure a failed configuration leaves null is there. */
export type MeasuredResult = BenchResult & {
  medianMs: number;
  minMs: number;
  maxMs: number;
  opsPerSec: number;
  latencyUs: LatencyUs;
  histogram: string;
  breakdown: Breakdown;
};

/** A result that produced figures; a failed configuration keeps its error and the samples that finished. */
export function isOk(r: BenchResult): r is MeasuredResult {
  return r.error === undefined || r.error === '';
}

/** Latency per wait (one batch from send to last reply), microseconds; p999 on a lossy link only. */
export interface LatencyUs {
  p50: number;
  p90: number;
  p99: number;
  p999?: number;
  max: number;
}

export interface BenchReport {
  kind: 'bench';
  environment: Environment;
  method: Method;
  results: BenchResult[];
  /** Configurations skipped as not applicable, and other notes for the reader. */
  notes: string[];
  /** What opening a connection costs on each link, and whether any was opened while timing (absent in older reports). */
  connectionSetup?: ConnectionSetup;
  /** Stopped by Ctrl-C, SIGTERM or SIGHUP: `results` hold the samples that finished (absent otherwise). */
  interrupted?: true;
  stoppedBy?: StopSignalName;
}

/**
 * Connection set-up in a bench run: the driver connects every client before any sample is timed, so
 * no figure includes it; this says what a new connection would have cost on each link.
 */
export interface ConnectionSetup {
  /** Connections opened while a sample was timed (0: every client connects before timing). */
  openedWhileTimed: number;
  /** Round trips a new connection pays before its first command. */
  roundTrips: number;
  /** What they are: "TCP connect" (the proxy charges one RTT for it), "HELLO" (RESP3) or "AUTH". */
  steps: string[];
  /** Per link with a simulated RTT: roundTrips x RTT. */
  links: { link: string; rttUs: number; ms: number }[];
}

export interface CalibrateRow {
  /** "direct", "proxy 0", "0.2ms", ... */
  label: string;
  configuredRttUs: number | null;
  samples: number;
  /** PING round trip seen by the client, microseconds. */
  rttP50Us: number;
  rttP99Us: number;
  /** Measured RTT minus direct, at p50 and p99. */
  addedP50Us: number | null;
  addedP99Us: number | null;
  /** (added p50 - configured) / configured, percent. */
  errorPct: number | null;
  /** Proxy process CPU while measuring this row, percent of one core. */
  proxyCpuPct: number | null;
  /**
   * How late the proxy's delay lines delivered against their due times (p50 / p99, us): the delay
   * line's own precision. The rest of `added - configured` is the hop and the peers' wake-ups.
   */
  lateP50Us?: number | null;
  lateP99Us?: number | null;
  /**
   * The row was measured in `rounds` alternating direct/proxied blocks; addedP50Us is the median of
   * the per-round added p50s and these are their smallest and largest.
   */
  rounds?: number;
  addedMinUs?: number | null;
  addedMaxUs?: number | null;
  histogram: string;
}

export interface CalibrateReport {
  kind: 'calibrate';
  environment: Environment;
  rows: CalibrateRow[];
  /** CPU of an idle proxy with one idle connection, percent of one core; null when not measured (interrupted, or turned off). */
  idleCpuPct: number | null;
  /** Ctrl-C stopped the run: `rows` hold only the rows that finished (the verdict says so too). */
  interrupted?: true;
  /** Microseconds the proxy took off each one-way delay (a constant given with --compensate). */
  compensationUs?: number;
  /**
   * Auto mode: what calibrate measured with no compensation (the first pass), and the table it
   * derived from it (half of each RTT's excess, per one-way delay) and applied to the final rows.
   * Pass this result to `proxy --compensate FILE` to use the table.
   */
  uncalibratedRows?: CalibrateRow[];
  compensationTable?: Array<{ delayUs: number; compUs: number }>;
  /**
   * Interrupted in the second pass: the points the first pass derived whose rows were never
   * measured with the table. They are not in `compensationTable` (absent when none was checked).
   */
  uncheckedCompensation?: Array<{ delayUs: number; compUs: number }>;
  verdict: string;
}
