import { LatencyHistogram } from '../../numbers/histogram.js';
import { ServiceTimes } from './punctual.js';

/**
 * The latency bookkeeping of an open-loop run, pure: every method takes the time from the caller.
 *
 * corrected   = reply - intended send time (counts the wait in the backlog and for a batch to fill)
 * uncorrected = reply - actual send time (what a closed-loop or rate-limited driver reports)
 * lateness    = the generator's own scheduling error, independent of the link: for a command sent
 *               alone, when its write began - when it was due (or, when no connection was free,
 *               when the generator saw it due: the wait for a connection is the link's); for a
 *               command in a window's batch, when the generator saw it due - when it was due
 * batch wait  = when the command's batch closed - when the command was due (the price of a window)
 * connection wait = when the command's write began - when it joined the backlog (seen due alone,
 *               or its batch closed): the wait for a free connection, the link's queueing
 *
 * Also kept: the backlog (due, not yet sent) over time, and the time-average of commands
 * outstanding (due, not yet answered), which Little's law relates to rate x latency.
 */
export class OpenLoopLedger {
  readonly corrected = new LatencyHistogram();
  readonly uncorrected = new LatencyHistogram();
  /** Corrected latency of the commands intended in the first and second half of the duration. */
  readonly correctedFirstHalf = new LatencyHistogram();
  readonly correctedSecondHalf = new LatencyHistogram();
  readonly lateness = new LatencyHistogram();
  readonly batchWait = new LatencyHistogram();
  readonly connectionWait = new LatencyHistogram();
  /** Each answered command's due and service time, for the punctual replay; kept once keepServiceTimes() asked. */
  serviceTimes: ServiceTimes | undefined;
  released = 0;
  sent = 0;
  completed = 0;
  failed = 0;
  /** Completions no later than the end of the duration. */
  completedInDuration = 0;
  batchesSent = 0;
  lastCompletionNs = 0;
  /** Largest backlog per bucket of `bucketNs`, from the start. */
  readonly backlogMax: number[] = [];
  peakBacklog = 0;
  private backlog = 0;
  private outstanding = 0;
  private outstandingAreaNs = 0;
  private lastChangeNs: number;

  constructor(
    readonly startNs: number,
    readonly durationNs: number,
    readonly bucketNs: number,
  ) {
    this.lastChangeNs = startNs;
  }

  /** A command became due (intended at dueNs) and the driver saw it at nowNs; `late`: take its lateness now. */
  onReleased(dueNs: number, nowNs: number, late: boolean): void {
    this.integrate(nowNs);
    if (late) this.onLate(dueNs, nowNs);
    this.released++;
    this.outstanding++;
    this.setBacklog(this.backlog + 1, nowNs);
  }

  /** The generator acted on a command due at dueNs at nowNs (see lateness above). */
  onLate(dueNs: number, nowNs: number): void {
    this.lateness.record((nowNs - dueNs) / 1000);
  }

  /** A batch closed at nowNs holding commands due at `dues`. */
  onBatchClosed(dues: ArrayLike<number>, nowNs: number): void {
    for (let i = 0; i < dues.length; i++) this.batchWait.record((nowNs - (dues[i] as number)) / 1000);
  }

  /** Keep every answered command's service time (commands sent alone, one in flight per connection: punctual.ts). */
  keepServiceTimes(expected: number): void {
    this.serviceTimes = new ServiceTimes(expected);
  }

  /** `count` commands that joined the backlog at joinedNs were written at nowNs. */
  onSent(count: number, nowNs: number, joinedNs: number): void {
    for (let i = 0; i < count; i++) this.connectionWait.record((nowNs - joinedNs) / 1000);
    this.sent += count;
    this.batchesSent++;
    this.setBacklog(this.backlog - count, nowNs);
  }

  /** The replies to commands due at `dues`, sent together at sentNs, all arrived at nowNs. */
  onCompleted(dues: ArrayLike<number>, sentNs: number, nowNs: number, ok: boolean): void {
    this.integrate(nowNs);
    const n = dues.length;
    this.outstanding -= n;
    this.lastCompletionNs = Math.max(this.lastCompletionNs, nowNs);
    if (!ok) {
      this.failed += n;
      return;
    }
    this.completed += n;
    if (nowNs <= this.startNs + this.durationNs) this.completedInDuration += n;
    const halfNs = this.startNs + this.durationNs / 2;
    const uncorrectedUs = (nowNs - sentNs) / 1000;
    for (let i = 0; i < n; i++) {
      const due = dues[i] as number;
      const correctedUs = (nowNs - due) / 1000;
      this.corrected.record(correctedUs);
      this.uncorrected.record(uncorrectedUs);
      (due < halfNs ? this.correctedFirstHalf : this.correctedSecondHalf).record(correctedUs);
      this.serviceTimes?.add(due, nowNs - sentNs);
    }
  }

  /** Time-average of commands outstanding from the start to the last reply. */
  meanOutstanding(): number {
    const spanNs = this.lastChangeNs - this.startNs;
    return spanNs > 0 ? this.outstandingAreaNs / spanNs : 0;
  }

  get backlogNow(): number {
    return this.backlog;
  }

  private setBacklog(value: number, nowNs: number): void {
    // Buckets with no change in them held the backlog as it was before this change.
    const bucket = Math.max(0, Math.floor((nowNs - this.startNs) / this.bucketNs));
    while (this.backlogMax.length <= bucket) this.backlogMax.push(this.backlog);
    this.backlog = value;
    if (value > this.peakBacklog) this.peakBacklog = value;
    if (value > (this.backlogMax[bucket] as number)) this.backlogMax[bucket] = value;
  }

  private integrate(nowNs: number): void {
    if (nowNs > this.lastChangeNs) {
      this.outstandingAreaNs += this.outstanding * (nowNs - this.lastChangeNs);
      this.lastChangeNs = nowNs;
    }
  }
}
