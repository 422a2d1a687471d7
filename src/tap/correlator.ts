/**
 * Matches one connection's request frames to its reply frames and keeps its counters. Knows
 * nothing of bytes or framers: the tap feeds it frames and the four stamps. All times are the
 * proxy's monotonic nanoseconds as passed in (a fake clock in tests).
 *
 * Semantics (quoted by docs/counters.md):
 * - Arrival: the time of the client chunk holding the request's last byte. Sent: the time the up
 *   delay line reported it had written past the request's end offset to Redis (if that report
 *   comes after the reply did, sent is taken as the reply's first byte). First reply byte: arrival
 *   time of the Redis chunk holding the reply's first byte. Delivered: the time the down delay line
 *   reported it had written past the reply's end offset to the client.
 * - serverUs = first reply byte - sent; clientUs = delivered - arrival (integer us, 0 if negative).
 * - Requests are answered in order. A request is outstanding from its arrival until its (last)
 *   reply frame was delivered to the client; a request that gets no reply (CLIENT REPLY OFF/SKIP)
 *   is never outstanding.
 * - roundTrips: times the connection went from 0 to >= 1 outstanding. The round trip's requests
 *   (all arriving while it is open, no-reply ones included) go into depthHistogram when it ends
 *   (back to 0 outstanding) or when the connection closes.
 * - flights: bursts of requests; the first request ever, and the first after any bytes from Redis
 *   were delivered to the client, each start one.
 * - Pub/sub: (P/S)SUBSCRIBE with k channels is answered by its k confirmation frames (RESP2 arrays
 *   or RESP3 pushes alike), each counted as a reply, never as a push; it stays outstanding until
 *   the LAST one is delivered (serverUs runs to the first one). An argument-less (P/S)UNSUBSCRIBE
 *   expects one confirmation per subscription at the time it is answered (at least one). If any
 *   other frame comes before all confirmations did, the command is closed with what it got, so a
 *   miscount can never leave it outstanding. Confirmations no request waits for are pushes.
 * - Pushes (never replies, never round trips): every RESP3 `>` frame other than an awaited
 *   confirmation; in RESP2 subscribed mode the message/pmessage/smessage arrays; after MONITOR's
 *   +OK the monitor lines; any frame arriving when no request waits for one ('unmatched').
 * - Errors (`-`, `!`) are replies: errorReplies, errorsByPrefix[first word], the command's errors.
 * - CLIENT REPLY OFF/SKIP and MULTI are followed in request order (request-modes.ts): silenced
 *   requests get no reply; MULTI, each queued command (+QUEUED or an error) and EXEC/DISCARD are
 *   ordinary commands with one reply each, so a MULTI batch of B commands is B+2 commands.
 * - HELLO 2/3 sets the protocol when its reply is not an error; MONITOR's +OK starts monitor mode;
 *   +RESET means RESP2, no subscriptions, no MONITOR (and, in request order, CLIENT REPLY ON and
 *   no MULTI). QUIT is an ordinary command (+OK, then the server closes).
 * - Blocking commands (blocking.ts; never inside MULTI, where they do not block) count in
 *   blockingCommands and record into their own CommandStats, flagged `blocking`.
 * - Events: one command event per request, when its reply is delivered (a no-reply request: when
 *   it was written to Redis) or when the connection closes (reply 'none' if nothing came).
 * - On a framer desync the correlator freezes: no more matching, stamping or round trips; pending
 *   requests keep what they had and end with the connection. Commands are still counted.
 * - Degraded (pending-budget.ts): a request that would take the connection or the process past the
 *   bound on unfinished requests freezes the correlator the same way, but its pending records are
 *   dropped at once (no events: the trace lacks this connection's commands from there on), so the
 *   memory goes back. Commands are still counted.
 * - An empty inline line is not a command (Redis skips it without a reply).
 */
import { learnProvenName, moduleCandidate, UNKNOWN_COMMAND_NAME } from '../resp/command-name.js';
import { RespType, type ReplyFrame, type RequestFrame } from '../resp/types.js';
import type { CommandTable } from './command-table.js';
import { countErrorReply, newCounters } from './counters.js';
import type { Counters, TapEvent } from './counter-types.js';
import { CommandKind, helloProtocol } from '../resp/command-kind.js';
import { CommandResolver } from './command-resolver.js';
import { FrameClass, ReplyModes, classifyFrame, confirmationKind, pushKind } from '../resp/reply-modes.js';
import { EXPECT_PER_SUBSCRIPTION, RequestModes } from '../resp/request-modes.js';
import { PendingBudget } from './pending-budget.js';
import { RequestRing, type PendingRequest } from './request-ring.js';
import { RoundTrips } from './round-trips.js';
import { commandEvent, keepEventDetails } from './tap-events.js';

export interface CorrelatorOptions {
  /** Connection id put in events. */
  conn: number;
  /** Where per-command counts and latencies go (shared by a stats collector's connections). */
  commands: CommandTable;
  onEvent?: (event: TapEvent) => void;
  /** Keyed hash of the first key argument, for events; argument values never leave otherwise. */
  keyHash?: (key: Buffer) => string;
  /** Bound on unfinished requests, shared by a stats collector's connections. @default a private default budget */
  budget?: PendingBudget;
}

export class Correlator {
  counters: Counters = newCounters();
  readonly requestModes = new RequestModes();
  readonly replyModes = new ReplyModes();
  desynced = false;
  /** Gave up timing at the pending-request bound (see the header). */
  degraded = false;
  private closed = false;
  private readonly trips = new RoundTrips();
  private ring = new RequestRing();
  private readonly budget: PendingBudget;
  // Absolute ring indices: next request to answer, to stamp as written up, to stamp as written down.
  private matchAt = 0;
  private upWrittenAt = 0;
  private downWrittenAt = 0;
  private upWrittenOffset = 0;
  private downWrittenOffset = 0;
  private lastDownWrittenNs = 0;
  private readonly resolver: CommandResolver;

  constructor(private readonly options: CorrelatorOptions) {
    this.budget = options.budget ?? new PendingBudget();
    this.resolver = new CommandResolver(options.commands);
  }

  /** Requests sent and not yet answered (their last reply frame not yet delivered). */
  get outstanding(): number {
    return this.trips.outstanding;
  }

  /** Requests not finished yet (waiting to be sent, answered or delivered). */
  get pending(): number {
    return this.ring.size;
  }

  /** Requests recorded so far (an absolute ring index), a mark for answeredBefore(). */
  get requestMark(): number {
    return this.ring.tail;
  }

  /** Every request recorded before `mark` got all its reply frames (unknown, so false, once frozen). */
  answeredBefore(mark: number): boolean {
    if (this.desynced || this.degraded || this.closed) return false;
    this.target(); // skips the requests that get no reply
    return this.matchAt >= mark;
  }

  request(frame: RequestFrame, name: string, nowNs: number): void {
    // An empty inline line is skipped by Redis without a reply: it is not a command.
    if (frame.argc === 0 || this.closed) return;
    const c = this.counters;
    const modes = this.requestModes;
    c.commands++;
    const r = this.resolver;
    r.resolve(name, frame, modes.inMulti);
    const { key, blocking } = r;
    const entry = r.entry!;
    if (blocking) c.blockingCommands++;
    entry.count++;
    if (this.desynced || this.degraded) return;
    if (this.budget.full(this.ring.size)) return this.degrade();
    const kind = modes.effectiveKind(r.kind);
    const rec = this.ring.push();
    this.budget.used++;
    rec.name = key;
    rec.entry = entry;
    rec.kind = kind;
    rec.argc = frame.argc;
    rec.requestBytes = frame.end - frame.start;
    rec.end = frame.end;
    rec.arrivedNs = nowNs;
    rec.blocking = blocking;
    rec.expected = modes.admit(kind, frame.argc);
    if (kind === CommandKind.Hello) rec.helloProtocol = helloProtocol(frame);
    if (name === UNKNOWN_COMMAND_NAME) rec.candidate = moduleCandidate(frame.head[0]);
    if (this.options.onEvent !== undefined) keepEventDetails(rec, frame, name, this.options.keyHash);
    rec.roundTrip = this.trips.arrived(c, rec.expected !== 0);
  }

  /** A reply or push frame whose first byte arrived at `firstByteNs`. */
  reply(f: ReplyFrame, firstByteNs: number): void {
    if (this.desynced || this.degraded || this.closed) return;
    const cls = classifyFrame(f, this.replyModes);
    if (cls === FrameClass.Confirmation) {
      const kind = confirmationKind(f.head);
      const target = this.target();
      if (target !== null && target.kind === kind) return this.confirm(target, f, firstByteNs);
      // Nobody waits for it: a push (the subscriptions did change). Outside pub/sub, a RESP2
      // array that merely starts with "subscribe" is a plain reply.
      if (f.type === RespType.Push || this.replyModes.subscribed) {
        this.replyModes.confirmed(kind, f.lastInt);
        return this.push(f, pushKind(f.head), firstByteNs);
      }
    } else if (cls === FrameClass.Push) {
      return this.push(f, pushKind(f.head), firstByteNs);
    } else if (cls === FrameClass.MonitorLine) {
      return this.push(f, 'monitor', firstByteNs);
    }
    this.normalReply(f, firstByteNs);
  }

  /** The up delay line wrote everything before `endOffset` to Redis at `nowNs`. */
  upWritten(endOffset: number, nowNs: number): void {
    if (this.desynced || this.degraded || this.closed || endOffset <= this.upWrittenOffset) return;
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
    if (this.desynced || this.degraded) return;
    this.stampDownWritten(nowNs);
    this.finishHead();
  }

  desync(): void {
    this.desynced = true;
  }

  /** Stops timing this connection and gives its records back (the pending-request bound). */
  private degrade(): void {
    this.degraded = true;
    this.budget.used -= this.ring.size;
    // A fresh ring: the old one grew to the bound and would keep its records alive.
    this.ring = new RequestRing();
    this.matchAt = this.upWrittenAt = this.downWrittenAt = 0;
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

  /** The request the next reply frame answers, or null. Skips requests that get no reply. */
  private target(): PendingRequest | null {
    const ring = this.ring;
    while (this.matchAt < ring.tail) {
      const rec = ring.at(this.matchAt);
      if (rec.expected === 0) {
        this.matchAt++;
        continue;
      }
      if (rec.expected === EXPECT_PER_SUBSCRIPTION) rec.expected = this.replyModes.unsubscribeAllReplies(rec.kind);
      return rec;
    }
    return null;
  }

  private normalReply(f: ReplyFrame, firstByteNs: number): void {
    let target = this.target();
    if (target !== null && target.received > 0) {
      // A pub/sub command cut short of its confirmations: close it; this frame is the next one's.
      this.complete(target);
      target = this.target();
    }
    if (target === null) return this.push(f, this.replyModes.monitor ? 'monitor' : 'unmatched', firstByteNs);
    this.record(target, f, firstByteNs);
    // Redis knows the command: a module we do not list.
    if (target.candidate !== undefined && f.type !== RespType.Error && f.type !== RespType.BlobError) learnProvenName(target.candidate);
    this.replyModes.answered(target.kind, target.helloProtocol, f.type);
    this.complete(target);
  }

  private confirm(target: PendingRequest, f: ReplyFrame, firstByteNs: number): void {
    this.replyModes.confirmed(target.kind, f.lastInt);
    this.record(target, f, firstByteNs);
    target.received++;
    if (target.received >= target.expected) this.complete(target);
  }

  private record(target: PendingRequest, f: ReplyFrame, firstByteNs: number): void {
    this.counters.replies++;
    if (target.firstReplyNs < 0) target.firstReplyNs = firstByteNs;
    target.replyEnd = f.end;
    target.replyBytes += f.end - f.start;
    if (target.replyType === 0) target.replyType = f.type;
    if (f.type !== RespType.Error && f.type !== RespType.BlobError) return;
    target.errorPrefix = countErrorReply(this.counters, f.errorPrefix);
    target.replyType = f.type;
    if (target.entry !== null) target.entry.errors++;
  }

  /** The target got all its reply frames. */
  private complete(target: PendingRequest): void {
    this.matchAt++;
    // Only if the proxy reported the write before the framer saw the bytes (not its usual order).
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
    const onEvent = this.options.onEvent;
    if (onEvent !== undefined) onEvent(commandEvent(this.options.conn, rec));
    const ring = this.ring;
    ring.shift();
    this.budget.used--;
    if (this.matchAt < ring.head) this.matchAt = ring.head;
    if (this.upWrittenAt < ring.head) this.upWrittenAt = ring.head;
    if (this.downWrittenAt < ring.head) this.downWrittenAt = ring.head;
  }

  private push(f: ReplyFrame, kind: string, firstByteNs: number): void {
    this.counters.pushes++;
    const onEvent = this.options.onEvent;
    if (onEvent !== undefined) {
      onEvent({ type: 'push', conn: this.options.conn, atUs: firstByteNs / 1000, bytes: f.end - f.start, kind });
    }
  }
}
