import type { PartitionFlight } from './partition.js';
import { SegmentLoss, type LossPath } from './loss-model.js';
import { rackDetectNs } from './rto.js';
import { mulberry32 } from './rng.js';
import type { EndKind, Scheduler, Timer } from '../stage/types.js';

/** The loss of a line that was given none: its rate stays 0, so nothing else of it is read. */
const NO_LOSS: LossPath = Object.freeze({
  rate: 0,
  rateAfterLoss: 0,
  resendRate: 0,
  mssBytes: 1448,
  srttNs: 0,
  rttvarNs: 0,
  srttNowNs: undefined,
  uniform: mulberry32(0),
  counters: Object.freeze({ segments: 0, lost: 0, retransmitted: 0, retransmitNs: 0 }),
});

/**
 * What a delay line does with bytes the network loses: a chunk with lost segments (loss-model.ts)
 * and the chunks a partition takes (partition.ts) both arrive at their sender's resend, never
 * before the chunk ahead. DelayLine (delay-line.ts) is the one subclass.
 *
 * A base class, not a helper object or functions taking the line: the line's ring and due clamp
 * stay its own fields (protected here, not public API), the no-loss push path still tests one
 * number (`lossPath.rate`) and one field (`flight`) as it did in one file, and a line without loss
 * or partition allocates nothing more. The abstract members are the line's, named as it names them.
 */
export abstract class LossyLine {
  protected abstract readonly options: { readonly scheduler: Scheduler; readonly arrivalWaitNs?: () => number };
  /** The ring's due times, `head` its oldest, `count` queued; its length is the ring's (a power of two or 0). */
  protected abstract dueNs: Float64Array;
  protected abstract head: number;
  protected abstract count: number;
  /** Due time of the last chunk queued: nothing queued after it may be due before it. */
  protected abstract lastDueNs: number;
  protected abstract pending: number;
  protected abstract readonly timer: Timer;
  protected abstract destroyed: boolean;
  /** When a chunk arrives at the far side with nothing ahead of it (send time plus delay, through a partition). */
  protected abstract sentAndDelayedNs(bytes: number, arrivalNs: number): number;
  protected abstract enqueue(item: Buffer | EndKind, due: number, waitNs: number): void;

  /** While a partition may still take this direction's chunks (partition.ts); undefined the rest of the time. */
  protected flight: PartitionFlight | undefined;
  protected readonly lossPath: LossPath;
  /** This line's loss chain and piece plan, made at its first chunk under loss. */
  private loss: SegmentLoss | undefined;
  /** Lost tails still waiting for their probe or RTO, oldest first (see rescueTails). */
  private tails: LostTail[] = [];

  constructor(loss: LossPath | undefined) {
    this.lossPath = loss ?? NO_LOSS;
  }

  /**
   * A partition starts: from now on chunks it takes arrive at their sender's resend, and so do
   * those already on the wire at its start (queued, due at or after it), with the end marker.
   */
  partition(flight: PartitionFlight): void {
    if (this.destroyed) return;
    const before = this.flight;
    this.flight = flight;
    // Their dues move with the rest below; the partition decides when they arrive now.
    this.tails.length = 0;
    const startNs = flight.window.startNs;
    // Held by the partition before this one for a resend still to come: everything queued from the
    // cut on waits for that try (the ones ahead of it arrived before the cut). Taken as sent at the
    // cut, a held chunk arrived as many RTOs after this heal as it had left to wait, and a partition
    // that healed before that try delayed it all the same.
    const heldShiftNs = flight.carryHeld(before);
    const mask = this.dueNs.length - 1;
    let last = -Infinity;
    for (let i = 0; i < this.count; i++) {
      const at = (this.head + i) & mask;
      const dueNs = this.dueNs[at]!;
      // Else sent at most one trip before the cut; its RTO timer is taken to run from the cut.
      const due = dueNs < startNs ? dueNs : heldShiftNs !== undefined ? dueNs + heldShiftNs : flight.dueNs(dueNs, startNs);
      this.dueNs[at] = Math.max(due, last);
      last = this.dueNs[at]!;
    }
    if (this.count > 0) {
      this.lastDueNs = Math.max(this.lastDueNs, last);
      this.options.scheduler.arm(this.timer, this.dueNs[this.head]!);
    }
  }

  /** The partition this direction went through, while it may still matter (for a reset at its end). */
  get partitionFlight(): PartitionFlight | undefined {
    return this.flight;
  }

  /** A chunk's due time through the partition in `flight`; drops the flight once nothing more can be lost. */
  protected throughPartition(flight: PartitionFlight, due: number, sentNs: number): number {
    const out = flight.dueNs(due, sentNs);
    // Sent after the heal and the resend: nothing later can be lost, and the clamp keeps order.
    if (flight.settledAt(sentNs)) this.flight = undefined;
    return out;
  }

  /**
   * A chunk under loss: planned into pieces, each due at its resend (or on time), never before the
   * piece ahead. False when nothing of it was lost: then it goes the usual way.
   */
  protected pushLossy(chunk: Buffer, arrivalNs: number): boolean {
    const loss = (this.loss ??= new SegmentLoss(this.lossPath));
    const pieces = loss.plan(chunk.length);
    if (this.tails.length > 0 && loss.delivered && this.flight === undefined) this.rescueTails(arrivalNs);
    if (pieces === 1 && loss.pieceExtraNs[0] === 0) return false;
    const onTimeNs = this.sentAndDelayedNs(chunk.length, arrivalNs);
    const waitNs = this.options.arrivalWaitNs?.() ?? 0;
    let start = 0;
    let due = onTimeNs;
    for (let i = 0; i < pieces; i++) {
      const end = loss.pieceEnd[i]!;
      due = Math.max(onTimeNs + loss.pieceExtraNs[i]!, this.lastDueNs);
      this.lastDueNs = due;
      const piece = pieces === 1 ? chunk : chunk.subarray(start, end);
      start = end;
      this.pending += piece.length;
      this.enqueue(piece, due, waitNs);
    }
    // Only a tail that sets its own due (not one held behind an earlier loss) can come sooner; not in a partition.
    const last = pieces - 1;
    if (loss.tailFirstNs.length > 0 && due === onTimeNs + loss.pieceExtraNs[last]! && this.flight === undefined) {
      this.tails.push({ sentNs: arrivalNs, onTimeNs, dueNs: due, firstNs: [...loss.tailFirstNs], backoffNs: [...loss.tailBackoffNs] });
    }
    return true;
  }

  /**
   * A chunk sent at `sentNs` got a segment through: its SACK, one SRTT later, tells the sender that
   * the lost tails sent before it are lost (RACK, RFC 8985 6.2), a quarter SRTT after their own
   * ACK was due, so each is resent then if its probe or RTO has not fired first: on a busy
   * connection a lost tail costs about an RTT, not the probe's 200 ms. Its piece and what queued
   * behind it at its due (held by it) move up; nothing passes the entry ahead of it.
   */
  private rescueTails(sentNs: number): void {
    const p = this.lossPath;
    const srttNs = p.srttNowNs === undefined ? p.srttNs : p.srttNowNs();
    for (const t of this.tails) {
      const foundNs = Math.max(sentNs + srttNs, t.sentNs + rackDetectNs(srttNs)) - t.sentNs;
      let extraNs = 0;
      for (let i = 0; i < t.firstNs.length; i++) {
        const firstNs = Math.min(t.firstNs[i]!, foundNs);
        p.counters.retransmitNs -= t.firstNs[i]! - firstNs;
        extraNs = Math.max(extraNs, firstNs + t.backoffNs[i]!);
      }
      if (t.onTimeNs + extraNs < t.dueNs) this.moveUp(t.dueNs, t.onTimeNs + extraNs);
    }
    this.tails.length = 0;
  }

  /** The queued entries due at `fromNs` (a run: dues never fall) become due at `toNs`, or with the entry ahead. */
  private moveUp(fromNs: number, toNs: number): void {
    const mask = this.dueNs.length - 1;
    let ahead = -Infinity;
    for (let i = 0; i < this.count; i++) {
      const at = (this.head + i) & mask;
      if (this.dueNs[at] === fromNs) this.dueNs[at] = Math.max(toNs, ahead);
      ahead = this.dueNs[at]!;
    }
    if (this.lastDueNs === fromNs) this.lastDueNs = ahead;
    if (this.count > 0) this.options.scheduler.arm(this.timer, this.dueNs[this.head]!);
  }
}

/** A chunk's lost tail while its probe or RTO is still to come: what rescueTails needs to move it up. */
interface LostTail {
  sentNs: number;
  /** When the chunk would have arrived without loss, and when its tail piece is due now. */
  onTimeNs: number;
  dueNs: number;
  /** Per lost tail segment: its first resend from the send, and what its resends lost again add. */
  firstNs: number[];
  backoffNs: number[];
}
