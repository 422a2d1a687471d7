/**
 * One connection's requests that are not finished yet, and what the proxy reports of them: the
 * sent and delivered stamps, the round trips they make, the event each finished one gives, the
 * pending-request bound. The correlator (correlator.ts) says what a frame means; this says when
 * a request was sent, answered and delivered. Semantics: the header of correlator.ts.
 */
import { ReplyMatching } from '../resp/reply-matching.js';
import { newCounters } from './counters.js';
import type { Counters, TapEvent } from './counter-types.js';
import { PendingBudget } from './pending-budget.js';
import { RequestRing, type PendingRequest } from './request-ring.js';
import { RoundTrips } from './round-trips.js';
import { commandEvent } from './tap-events.js';

export abstract class RequestLedger extends ReplyMatching<PendingRequest> {
  counters: Counters = newCounters();
  desynced = false;
  /**
   * The request stream stopped being valid RESP (Correlator.requestsEnded): no request comes after,
   * and those before it are still matched until none waits.
   */
  requestsLost = false;
  /** Gave up timing at the pending-request bound (pending-budget.ts). */
  degraded = false;
  protected closed = false;
  protected readonly trips = new RoundTrips();
  protected ring = new RequestRing();
  protected readonly budget: PendingBudget;
  // Absolute ring indices: next request to answer, to stamp as written up, to stamp as written down.
  protected matchAt = 0;
  private upWrittenAt = 0;
  private downWrittenAt = 0;
  private upWrittenOffset = 0;
  private downWrittenOffset = 0;
  private lastDownWrittenNs = 0;

  constructor(
    private readonly conn: number,
    private readonly onEvent: ((event: TapEvent) => void) | undefined,
    budget: PendingBudget | undefined,
  ) {
    super();
    this.budget = budget ?? new PendingBudget();
  }

  /** Requests sent and not yet answered (their last reply frame not yet delivered). */
  get outstanding(): number {
    return this.trips.outstanding;
  }

  /** Requests not finished yet (waiting to be sent, answered or delivered). */
  get pending(): number {
    return this.ring.size;
  }

  /** Requests recorded so far (an absolute ring index, = RequestInfo.seq), a mark for answeredBefore(). */
  get requestMark(): number {
    return this.ring.tail;
  }

  /** The up delay line wrote everything before `endOffset` to Redis at `nowNs`. */
  upWritten(endOffset: number, nowNs: number): void {
    if (this.frozen || endOffset <= this.upWrittenOffset) return;
    this.upWrittenOffset = endOffset;
    const ring = this.ring;
    while (this.upWrittenAt < ring.tail) {
      const rec = ring.at(this.upWrittenAt);
      if (rec.end > endOffset) break;
      if (rec.upWrittenNs < 0) rec.upWrittenNs = nowNs;
      this.upWrittenAt++;
    }
    this.finishHead();
  }

  /** The down delay line wrote everything before `endOffset` to the client at `nowNs`. */
  downWritten(endOffset: number, nowNs: number): void {
    if (this.closed || endOffset <= this.downWrittenOffset) return;
    this.downWrittenOffset = endOffset;
    this.lastDownWrittenNs = nowNs;
    this.trips.downWritten();
    // After a desync only the requests matched before it are stamped: their replies were framed
    // whole, and Redis writes them with the frame that stopped matching (a protocol error's reply
    // comes in the same write as the replies before it), so they are delivered after the desync.
    if (this.degraded) return;
    this.stampDownWritten(nowNs);
    this.finishHead();
  }

  desync(): void {
    this.desynced = true;
  }

  /** Ends the connection: an open round trip is counted, every pending request gets its event. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.trips.closed(this.counters);
    const ring = this.ring;
    while (ring.head < ring.tail) this.finishOne(ring.at(ring.head));
  }

  /** Starts a new counting period (stats collector reset); requests in flight finish into it. */
  resetCounters(): void {
    this.counters = newCounters();
    if (!this.closed) this.trips.carryInto(this.counters);
  }

  /** No more matching (desync, the pending bound, or closed); after a desync downWritten() still stamps the matched. */
  protected get frozen(): boolean {
    return this.desynced || this.degraded || this.closed;
  }

  /** Stops timing this connection and gives its records back (the pending-request bound). */
  protected degrade(): void {
    this.degraded = true;
    this.budget.used -= this.ring.size;
    // A fresh ring: the old one grew to the bound and would keep its records alive.
    this.ring = new RequestRing();
    this.matchAt = this.upWrittenAt = this.downWrittenAt = 0;
  }

  /** The oldest request that expects a reply frame and has not got them all, or null. */
  protected waiting(): PendingRequest | null {
    const ring = this.ring;
    while (this.matchAt < ring.tail) {
      const rec = ring.at(this.matchAt);
      if (rec.expected !== 0) return rec;
      this.passed(rec);
      this.matchAt++;
    }
    return null;
  }

  /** The record of request `seq` (RequestInfo.seq = its ring index), if it is still pending. */
  protected recordAt(seq: number): PendingRequest | null {
    const ring = this.ring;
    return seq >= ring.head && seq < ring.tail ? ring.at(seq) : null;
  }

  /** Only if the proxy reported the write before the framer saw the bytes (not its usual order). */
  protected stampIfWritten(target: PendingRequest): void {
    if (target.replyEnd <= this.downWrittenOffset) this.stampDownWritten(this.lastDownWrittenNs);
  }

  private stampDownWritten(nowNs: number): void {
    const ring = this.ring;
    while (this.downWrittenAt < this.matchAt) {
      const rec = ring.at(this.downWrittenAt);
      if (rec.expected !== 0) {
        if (rec.replyEnd > this.downWrittenOffset) break;
        rec.downWrittenNs = nowNs;
        if (rec.upWrittenNs < 0 || rec.upWrittenNs > rec.firstReplyNs) rec.upWrittenNs = rec.firstReplyNs;
        rec.entry?.recordLatency(rec.firstReplyNs - rec.upWrittenNs, rec.downWrittenNs - rec.arrivedNs);
        this.trips.answered(this.counters);
      }
      this.downWrittenAt++;
    }
  }

  /** Emits and drops finished requests from the front, keeping every cursor inside the ring. */
  private finishHead(): void {
    const ring = this.ring;
    while (ring.head < ring.tail) {
      const rec = ring.at(ring.head);
      if (rec.expected === 0 ? rec.upWrittenNs < 0 : rec.downWrittenNs < 0) break;
      this.finishOne(rec);
    }
  }

  private finishOne(rec: PendingRequest): void {
    const onEvent = this.onEvent;
    if (onEvent !== undefined) onEvent(commandEvent(this.conn, rec));
    const ring = this.ring;
    // A silent request done before a frame came to pass it over: every reply before it came (they
    // are done too), so what it changes takes effect now.
    if (rec.expected === 0 && this.matchAt === ring.head) this.passed(rec);
    ring.shift();
    this.budget.used--;
    if (this.matchAt < ring.head) this.matchAt = ring.head;
    if (this.upWrittenAt < ring.head) this.upWrittenAt = ring.head;
    if (this.downWrittenAt < ring.head) this.downWrittenAt = ring.head;
  }
}
