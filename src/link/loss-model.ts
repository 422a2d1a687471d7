/**
 * Packet loss as a TCP sender pays for it: no byte is ever dropped; a lost segment arrives late, at
 * the time a Linux sender would have resent it (rto.ts), and everything behind it on the connection
 * waits (the delay line keeps due times non-decreasing). docs/method.md states the model and what
 * it leaves out.
 *
 * Per chunk: cut into segments of `mssBytes`; the loss chain says which are lost; each lost one
 * gets its first resend at
 *   - RACK (rackDetectNs) when a later segment of the same chunk got through: its ACK tells;
 *   - the tail-loss probe (tlpTimeoutNs, capped at the RTO) for the last segment of a chunk;
 *   - the probe plus one SRTT for the others of a lost tail (the probe's ACK reveals them), or the
 *     RTO when the probe would not fire first;
 *   - or, for a lost tail, sooner when a later chunk gets a segment through first (RACK on its
 *     SACK): the line moves it up then (lossy-line.ts rescueTails);
 * and each resend is lost at the long-run rate (`resendRate`), the next try waiting the RTO, then
 * doubling. The chain steps per segment sent: a run of losses is of segments that left together or
 * one after the other, and a resend leaves an SRTT or more after its loss, past that run. With the
 * chain's bad state on resends too, a mean burst of 10 lost a resend 9 times in 10 and backed off
 * for minutes, which no network with that loss rate makes TCP pay.
 */
import { backedOffRtoNs, rackDetectNs, rtoNs, synRetryNs, TCP_RETRIES2, TCP_SYN_RETRIES, tlpTimeoutNs } from './rto.js';
import type { Uniform } from './rng.js';

/** What one direction of a link counts of its losses, across its connections. */
export interface LossCounters {
  /** Segments sent once (a chunk's segments; resends not counted). */
  segments: number;
  /** Transmissions lost, first sends and resends. */
  lost: number;
  /** Resends. */
  retransmitted: number;
  /** Sum over lost segments of the time from their first send to the resend that got through, ns. */
  retransmitNs: number;
}

export function newLossCounters(): LossCounters {
  return { segments: 0, lost: 0, retransmitted: 0, retransmitNs: 0 };
}

/** Adds `from` into `into`: the counts of several links (a cluster's nodes) in one. */
export function addLossCounters(into: LossCounters, from: LossCounters): void {
  into.segments += from.segments;
  into.lost += from.lost;
  into.retransmitted += from.retransmitted;
  into.retransmitNs += from.retransmitNs;
}

/**
 * One direction's loss settings, shared by its connections and changed in place when the link
 * changes, so a delay line checks one number per chunk (`rate > 0`) and pays nothing more without
 * loss.
 */
export interface LossPath {
  /** Probability that a segment is lost after one that got through (the chain's good state). */
  rate: number;
  /** Probability that a segment is lost after a lost one (the bad state). */
  rateAfterLoss: number;
  /** Probability that a resend is lost: the chain's long-run share of losses, each try on its own. */
  resendRate: number;
  mssBytes: number;
  /** The sender's smoothed RTT and mean deviation (the link's configured RTT and jitter), ns. */
  srttNs: number;
  rttvarNs: number;
  /**
   * On a moving link (a wave, a ramp, a series): the RTT now, ns, which a sender's SRTT follows; read
   * per lossy chunk in place of srttNs. Undefined on a constant link (srttNs is the RTT then).
   */
  srttNowNs?: (() => number) | undefined;
  uniform: Uniform;
  counters: LossCounters;
}

/**
 * The two probabilities of the loss chain from a mean loss rate and a mean burst length: a run of
 * losses ends with probability 1 / burst, and the good state's rate is set so that the long-run
 * share of lost segments is `rate`. burst 0 means independent losses (both equal `rate`).
 */
export function lossChain(rate: number, burst: number): { rate: number; rateAfterLoss: number; resendRate: number } {
  if (burst === 0 || rate === 0) return { rate, rateAfterLoss: rate, resendRate: rate };
  const rateAfterLoss = 1 - 1 / burst;
  // Stationary share of losses: g / (1 - b + g) = rate  =>  g = rate (1 - b) / (1 - rate).
  const good = Math.min(1, (rate * (1 - rateAfterLoss)) / (1 - rate));
  return { rate: good, rateAfterLoss, resendRate: rate };
}

/**
 * One direction of one connection: the chain's state (a flow's last segment was lost or not) and
 * the pieces of the chunk being planned. Pieces: byte ranges of the chunk sharing one extra delay,
 * in order, extra non-decreasing (a byte waits for every lost byte before it).
 */
export class SegmentLoss {
  private lastLost = false;
  /** Piece i ends at byte pieceEnd[i] of the chunk and leaves pieceExtraNs[i] after the chunk would have. */
  readonly pieceEnd: number[] = [];
  readonly pieceExtraNs: number[] = [];
  /** Per segment of the chunk being planned: lost on its first send. */
  private readonly lostFirst: boolean[] = [];
  /** The planned chunk had a segment through on its first send: its (S)ACK can reveal an earlier chunk's lost tail. */
  delivered = false;
  /**
   * The planned chunk's lost tail (lost segments after the last one through), when it sets its last
   * piece's delay: each one's first resend (the probe or the RTO, from the send) and what its resends
   * lost again add. Empty otherwise. A later chunk that gets through may find it sooner (lossy-line.ts).
   */
  readonly tailFirstNs: number[] = [];
  readonly tailBackoffNs: number[] = [];

  constructor(private readonly path: LossPath) {}

  /** Plans one chunk of `bytes`; returns the number of pieces (1 when nothing was lost). */
  plan(bytes: number): number {
    const p = this.path;
    const n = Math.max(1, Math.ceil(bytes / p.mssBytes));
    const lostFirst = this.lostFirst;
    let lastDelivered = -1;
    for (let i = 0; i < n; i++) {
      const lost = this.roll();
      lostFirst[i] = lost;
      if (!lost) lastDelivered = i;
    }
    p.counters.segments += n;
    const srttNs = p.srttNowNs === undefined ? p.srttNs : p.srttNowNs();
    const rto = rtoNs(srttNs, p.rttvarNs);
    const tlp = tlpTimeoutNs(srttNs, n, rto);
    this.pieceEnd.length = 0;
    this.pieceExtraNs.length = 0;
    this.delivered = lastDelivered >= 0;
    this.tailFirstNs.length = 0;
    this.tailBackoffNs.length = 0;
    let extraSoFar = 0;
    let tailSetsLast = false;
    for (let i = 0; i < n; i++) {
      if (!lostFirst[i]) continue;
      const firstResendNs = i < lastDelivered ? rackDetectNs(srttNs) : i === n - 1 || tlp >= rto ? tlp : tlp + srttNs;
      const extra = this.resendUntilThrough(firstResendNs, rto);
      p.counters.lost++;
      p.counters.retransmitNs += extra;
      if (i > lastDelivered) {
        this.tailFirstNs.push(firstResendNs);
        this.tailBackoffNs.push(extra - firstResendNs);
        tailSetsLast ||= extra > extraSoFar;
      }
      if (extra <= extraSoFar) continue;
      // Bytes before segment i leave with what came before; from i on they wait `extra`.
      if (i > 0) this.close(i * p.mssBytes, extraSoFar);
      extraSoFar = extra;
    }
    this.close(bytes, extraSoFar);
    // A tail whose resends end before an earlier piece's does not set when the chunk's end arrives.
    if (!tailSetsLast) {
      this.tailFirstNs.length = 0;
      this.tailBackoffNs.length = 0;
    }
    return this.pieceEnd.length;
  }

  /** Adds a piece ending at `end`, merging with the last when it has the same extra delay. */
  private close(end: number, extraNs: number): void {
    const k = this.pieceEnd.length;
    if (k > 0 && this.pieceExtraNs[k - 1] === extraNs) this.pieceEnd[k - 1] = end;
    else if (k === 0 || end > this.pieceEnd[k - 1]!) {
      this.pieceEnd.push(end);
      this.pieceExtraNs.push(extraNs);
    }
  }

  /**
   * The time from the first send to the resend that gets through: the first resend at `firstNs`,
   * each further one the RTO later, doubling (Linux rearms the RTO after a probe or fast resend,
   * and backs off from its second expiry). After tcp_retries2 resends Linux would reset the
   * connection; the model delivers at that try instead (docs/method.md).
   */
  private resendUntilThrough(firstNs: number, rto: number): number {
    const c = this.path.counters;
    let atNs = firstNs;
    c.retransmitted++;
    const p = this.path;
    // Not this.roll(): a resend is off the chain (the class comment says why) and leaves its state.
    for (let tries = 1; tries < TCP_RETRIES2 && p.uniform() < p.resendRate; tries++) {
      c.lost++;
      c.retransmitted++;
      atNs += backedOffRtoNs(rto, tries);
    }
    return atNs;
  }

  private roll(): boolean {
    const p = this.path;
    const lost = p.uniform() < (this.lastLost ? p.rateAfterLoss : p.rate);
    this.lastLost = lost;
    return lost;
  }
}

/**
 * What loss adds to a connection's set-up: each try needs its SYN up and its SYN-ACK down to get
 * through, and a lost one costs the SYN timer (1 s, 2 s, 4 s, ...; both ends run it). The kernel
 * has long accepted the client's connect; this delays its first byte, as the handshake's RTT does.
 * Each is a lone packet a second or more from any other, lost at the long-run rate as a resend is
 * (`resendRate`): the chain's good-state `rate` is a tenth of it with bursts of 10, and SYNs were lost
 * that much less often than the loss asked for.
 */
export function handshakeLossNs(up: LossPath, down: LossPath): number {
  let extraNs = 0;
  for (let n = 1; n <= TCP_SYN_RETRIES && (up.uniform() < up.resendRate || down.uniform() < down.resendRate); n++) extraNs += synRetryNs(n);
  return extraNs;
}
