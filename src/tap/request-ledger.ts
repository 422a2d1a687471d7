/**
 * One connection's requests that are not finished yet, and what the proxy reports of them: the
 * sent and delivered stamps, the round trips they make, the event each finished one gives, the
 * pending-request bound. The correlator (correlator.ts) says what a frame means; this says when
 * a request was sent, answered and delivered. Semantics: the header of correlator.ts.
 */
import { CommandKind } from '../resp/command-kind.js';
import { ReplyMatching } from '../resp/reply-matching.js';
import { RespType, type ReplyFrame } from '../resp/types.js';
import { countErrorReply, newCounters, uncountErrorReply } from './counters.js';
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
  /** Gave up timing at the pending-request bound (pending-budget.ts), until its window ends (below). */
  degraded = false;
  /** Was degraded at some time: what /stats `tap.degradedConnections` and /connections report. */
  everDegraded = false;
  /**
   * While degraded, reply frames Redis still owes for plain requests (Normal, one reply each, no
   * transaction, replies on, no pub/sub or MONITOR): the window is counted without records, and
   * ends, with matching back, once they all reached the client. -1: some request could not be
   * followed without records, and the connection stays degraded.
   */
  private owed = -1;
  /** One past the last reply frame counted in the window. */
  private owedEnd = 0;
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
    if (this.degraded) {
      if (this.owed === 0 && endOffset >= this.owedEnd) this.windowEnded();
      return;
    }
    this.stampDownWritten(nowNs);
    this.finishHead();
  }

  desync(): void {
    this.desynced = true;
  }

  /**
   * Ends the connection: an open round trip is counted, every pending request gets its event.
   * `downBytes`: the bytes from Redis counted so far (the down stream's length, in the offsets
   * downWritten() takes; by default all were delivered); what of them never reached the client is
   * taken back out (dropUndelivered).
   */
  close(downBytes = this.downWrittenOffset): void {
    if (this.closed) return;
    this.closed = true;
    this.dropUndelivered(downBytes);
    this.trips.closed(this.counters);
    const ring = this.ring;
    while (ring.head < ring.tail) this.finishOne(ring.at(ring.head));
  }

  /**
   * Bytes and reply frames are counted as they come from Redis, before the down delay: those the
   * close dropped (held in a delay line, a stage or a partition when the connection was closed)
   * never reached the client and are not counted. Being the stream's last, they were counted in
   * this period (a reset counts a request in flight again in the new one, resetCounters). A
   * request's reply frames count as delivered when its last one was: one cut short counts none.
   */
  private dropUndelivered(downBytes: number): void {
    const delivered = this.downWrittenOffset;
    const dropped = downBytes - delivered;
    if (dropped <= 0) return;
    const c = this.counters;
    c.bytesDown -= Math.min(dropped, c.bytesDown);
    const ring = this.ring;
    for (let i = ring.head; i < ring.tail; i++) {
      const rec = ring.at(i);
      if (rec.replies === 0 || rec.replyEnd <= delivered) continue;
      c.replies -= Math.min(rec.replies, c.replies);
      if (rec.errorPrefix !== undefined) uncountErrorReply(c, rec.errorPrefix, rec.entry);
    }
  }

  /**
   * Starts a new counting period (stats collector reset); requests in flight finish into it. Those
   * whose replies have not all reached the client count there whole, as their latencies do: the
   * command (in total, by name, blocking) and the replies and errors already matched. Once they are
   * answered the period's commands, replies and histograms add up (a reset under load gave more
   * replies than commands). The command table is zeroed before this.
   */
  resetCounters(): void {
    const c = (this.counters = newCounters());
    if (this.closed) return;
    this.trips.carryInto(c);
    const ring = this.ring;
    for (let i = this.downWrittenAt; i < ring.tail; i++) {
      const rec = ring.at(i);
      c.commands++;
      // A request Redis finished answering had one reply unless it counts confirmations (pub/sub) or expects none.
      c.replies += i >= this.matchAt || rec.received > 0 ? rec.received : rec.expected === 0 ? 0 : 1;
      if (rec.blocking) c.blockingCommands++;
      if (rec.errorPrefix !== undefined) countErrorReply(c, rec.errorPrefix);
      if (rec.entry === null) continue;
      rec.entry.count++;
      if (rec.errorPrefix !== undefined) rec.entry.errors++;
    }
  }

  /** No more matching (desync, the pending bound, or closed); after a desync downWritten() still stamps the matched. */
  protected get frozen(): boolean {
    return this.desynced || this.degraded || this.closed;
  }

  /**
   * Stops timing this connection and gives its records back (the pending-request bound). `plain`:
   * the connection's modes let a plain request be followed without records (no transaction,
   * replies on, no pub/sub, no MONITOR, nothing owed past an EXEC); then the replies Redis still
   * owes are counted as they come, and the window ends when the last reached the client.
   */
  protected degrade(plain: boolean): void {
    this.degraded = this.everDegraded = true;
    const ring = this.ring;
    let owed = plain ? 0 : -1;
    for (let i = this.matchAt; owed >= 0 && i < ring.tail; i++) {
      const rec = ring.at(i);
      owed = rec.expected === 1 && rec.received === 0 && isPlainKind(rec.kind) ? owed + 1 : -1;
    }
    this.owed = owed;
    this.owedEnd = 0;
    this.budget.used -= ring.size;
    // A fresh ring: the old one grew to the bound and would keep its records alive.
    this.ring = new RequestRing();
    this.matchAt = this.upWrittenAt = this.downWrittenAt = 0;
  }

  /** A request of `kind` arrived while degraded; `plain`: the request modes let it be followed. */
  protected untimedRequest(kind: number, plain: boolean): void {
    if (this.owed < 0) return;
    if (!plain || !isPlainKind(kind)) {
      this.owed = -1;
      return;
    }
    this.owed++;
    this.trips.joinedUntimed(this.counters);
  }

  /** A server frame while degraded: a reply to the oldest request still owed one, or a push. */
  protected untimedReply(f: ReplyFrame): void {
    if (this.owed < 0) return;
    const c = this.counters;
    // As match() takes them with no pub/sub, MONITOR or transaction: a RESP3 push, or a frame no
    // request waits for, is a push.
    if (f.type === RespType.Push || this.owed === 0) {
      c.pushes++;
      return;
    }
    c.replies++;
    if (f.type === RespType.Error || f.type === RespType.BlobError) countErrorReply(c, f.errorPrefix);
    this.owedEnd = f.end;
    // The proxy may have reported the write before the framer saw the bytes.
    if (--this.owed === 0 && this.owedEnd <= this.downWrittenOffset) this.windowEnded();
  }

  /** Every reply of the window reached the client: its round trip ends, and matching starts again. */
  private windowEnded(): void {
    this.trips.untimedEnded(this.counters);
    this.degraded = false;
    this.owed = -1;
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

/** A kind with one reply and no effect on later frames: followed by count alone in a window. */
function isPlainKind(kind: number): boolean {
  return kind === CommandKind.Normal || kind === CommandKind.Auth;
}
