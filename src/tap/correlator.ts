/**
 * Follows one connection's requests and replies and keeps its counters. Knows nothing of bytes or
 * framers: the tap feeds it frames and the four stamps. On an unframed connection it matches the
 * reply frames itself (it is a ReplyMatching, resp/reply-matching.ts); on a framed one the frame
 * chain's sequencer is the connection's matcher and the tap hands on its matches and the chain's
 * decisions (fedFrame, fedEnd, fedDecided: framed-ledger.ts, its base class). All times are the
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
 * - Which frame answers which request, and which are pushes: reply-matching.ts. A pub/sub
 *   command's confirmations are each counted as a reply, never as a push; it stays outstanding
 *   until the LAST one is delivered (serverUs runs to the first one). Pushes are never replies,
 *   never round trips.
 * - Errors (`-`, `!`) are replies: errorReplies, errorsByPrefix[first word], the command's errors.
 * - CLIENT REPLY OFF/SKIP and MULTI are followed in request order (request-modes.ts): silenced
 *   requests get no reply; MULTI, each queued command (+QUEUED or an error) and EXEC/DISCARD are
 *   ordinary commands with one reply each, so a MULTI batch of B commands is B+2 commands. What
 *   queued commands change at EXEC is followed at EXEC's reply (exec-effects.ts); a transaction
 *   whose effects cannot be followed (CLIENT REPLY inside it, or an EXEC that gets no reply) stops
 *   matching as a desync does.
 * - +RESET also means, in request order, CLIENT REPLY ON and no MULTI. QUIT is an ordinary command
 *   (+OK, then the server closes).
 * - Blocking commands (blocking.ts; never inside MULTI, where they do not block) count in
 *   blockingCommands and record into their own CommandStats, flagged `blocking`; one queued inside
 *   MULTI records under another key ("BLPOP QUEUED"), so the blocking entry holds only real waits.
 * - Events: one command event per request, when its reply is delivered (a no-reply request: when
 *   it was written to Redis) or when the connection closes (reply 'none' if nothing came).
 * - On a framer desync the correlator freezes: no more matching or round trips; the requests
 *   matched before it are still stamped as delivered (a reply that came with the bad bytes is
 *   written to the client after them), the others keep what they had and end with the
 *   connection. Commands are still counted. A request framer's desync (the tap's, or a framed
 *   connection's chain's) waits for the replies to the requests before it (requestsEnded): Redis
 *   answers them before it refuses the bad one.
 * - Degraded (pending-budget.ts): a request that would take the connection or the process past the
 *   bound on unfinished requests freezes the correlator the same way, but its pending records are
 *   dropped at once (no events: the trace lacks the window's commands), so the memory goes back.
 *   Commands are still counted. When the connection's requests are plain (one reply each: no
 *   transaction, CLIENT REPLY, pub/sub or MONITOR), the window is counted without records (replies,
 *   pushes, errors, its round trip; not timed, maxDepth not raised past what it was) and ends when
 *   the last reply Redis owes reached the client: matching starts again from there, on an empty ring.
 * - An empty inline line is not a command (Redis skips it without a reply).
 */
import { learnProvenName, moduleCandidate, UNKNOWN_COMMAND_NAME } from '../resp/command-name.js';
import { CommandKind, helloProtocol } from '../resp/command-kind.js';
import { ReplyModes } from '../resp/reply-modes.js';
import { RequestModes } from '../resp/request-modes.js';
import { unfollowableExec } from '../resp/exec-effects.js';
import { RespType, type ReplyFrame, type RequestFrame } from '../resp/types.js';
import type { CommandTable } from './command-table.js';
import { CommandResolver } from './command-resolver.js';
import { isBlocking, mayBlock } from './blocking.js';
import { countErrorReply } from './counters.js';
import type { TapEvent } from './counter-types.js';
import type { PendingBudget } from './pending-budget.js';
import { FramedLedger, undoable } from './framed-ledger.js';
import type { PendingRequest } from './request-ring.js';
import { keepEventDetails } from './tap-events.js';

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

export class Correlator extends FramedLedger {
  readonly requestModes = new RequestModes();
  private readonly resolver: CommandResolver;
  /** Called when the replies after a lost request stream freeze the correlator (requestsEnded). */
  private onFrozen: (() => void) | undefined;
  /** A replica's replication stream (docs/counters.md): matching stopped at PSYNC's or SYNC's answer. */
  replication = false;

  constructor(protected readonly options: CorrelatorOptions) {
    super(options.conn, options.onEvent, options.budget);
    this.resolver = new CommandResolver(options.commands);
    this.replyModes.onRefused = (kind) => this.requestModes.refused(kind);
  }

  /**
   * PSYNC or SYNC was answered: the RDB and the master's writes come next, none a reply. A partial
   * resync's writes are valid RESP, which matched the replica's REPLCONF ACKs as their replies (with
   * latencies of seconds): matching stops here, as at a desync.
   */
  protected override replicationStarted(): void {
    this.replication = true;
    this.desync();
  }

  /**
   * A desync before PSYNC was answered is the master's newline keepalives while it prepares the
   * RDB: the connection is a replica's all the same. Read from the last request resolved (a replica
   * sends nothing between PSYNC and the RDB), only here: no work per request or chunk.
   */
  override desync(): void {
    if (!this.desynced && this.resolver.kind === CommandKind.Sync) this.replication = true;
    super.desync();
  }

  /** Every request recorded before `mark` got all its reply frames (unknown, so false, once frozen). */
  answeredBefore(mark: number): boolean {
    if (this.frozen) return false;
    this.target(); // skips the requests that get no reply
    return this.matchAt >= mark;
  }

  /**
   * A request arrived at `nowNs`. `endOffset`: one past its last byte in the client stream (a
   * frame chain started on a live connection counts its frames' offsets from where it started).
   */
  request(frame: RequestFrame, name: string, nowNs: number, endOffset = frame.end): void {
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
    if (this.desynced) return;
    if (this.degraded) return this.untimedRequest(r.kind, modes.plain);
    if (this.budget.full(this.ring.size)) {
      this.degrade(this.followsUntimed());
      return this.untimedRequest(r.kind, modes.plain);
    }
    const hello = r.kind === CommandKind.Hello ? helloProtocol(frame) : 0;
    const kind = modes.inMulti ? modes.inMultiKind(r.kind, frame.argc, hello) : r.kind;
    const rec = this.ring.push();
    this.budget.used++;
    rec.name = key;
    rec.entry = entry;
    rec.kind = kind;
    rec.baseKind = r.kind;
    rec.helloProtocol = hello;
    rec.argc = frame.argc;
    rec.requestBytes = frame.end - frame.start;
    rec.end = endOffset;
    rec.arrivedNs = nowNs;
    rec.blocking = blocking;
    // (Resolved inside MULTI, where nothing blocks: read again only for the names that can block.)
    rec.blocksIfRun = modes.inMulti ? mayBlock(name) && isBlocking(name, frame) : blocking;
    if (this.chainDecides && undoable(kind)) (rec.modesBefore = new RequestModes()).copyFrom(modes);
    rec.expected = modes.admit(kind, frame.argc);
    if (rec.expected === 0 && ReplyModes.changedBySilent(kind)) this.silentPending++;
    if (kind !== CommandKind.Normal) this.admitKind(rec, kind);
    if (name === UNKNOWN_COMMAND_NAME) rec.candidate = moduleCandidate(frame.head[0]);
    if (this.options.onEvent !== undefined) keepEventDetails(rec, frame, name, this.options.keyHash);
    rec.roundTrip = this.trips.arrived(c, rec.expected !== 0);
  }

  /**
   * Whether a degraded window can be counted without records: an unframed connection (a chain's
   * decisions need records) whose frames are told apart by type alone, none owed past an EXEC.
   */
  private followsUntimed(): boolean {
    const m = this.replyModes;
    return !this.chainDecides && !this.requestsLost && this.silentPending === 0 && !m.monitor && !m.subscribed;
  }

  /** What a request of a kind other than Normal needs kept beyond the ordinary. */
  private admitKind(rec: PendingRequest, kind: number): void {
    if (kind === CommandKind.ExecFollowed) {
      const queued = this.requestModes.takeQueued();
      rec.queued = queued;
      // Redis's replies from here on cannot be told apart (exec-effects.ts): stop matching. On a
      // framed connection the chain says so when it decides the EXEC (fedDecided): a stage may yet
      // answer the MULTI before it, and then there is no transaction.
      if (!this.chainDecides && unfollowableExec(rec.expected, queued)) this.desync();
    }
  }

  /** The client sent a request Redis reads as nothing (FrameSink.empty). */
  emptyRequest(): void {
    if (!this.closed) this.requestModes.empty();
  }

  /**
   * The connection's request stream stopped being valid RESP, at a request Redis refuses
   * (a protocol error, then Redis closes) or never reads. Redis still answers the requests before
   * it: they are matched and timed as ever, and the first frame that no request waits for (that
   * error, or anything after) freezes the correlator as a desync does, and calls `onFrozen`.
   */
  requestsEnded(onFrozen: () => void): void {
    this.requestsLost = true;
    this.onFrozen = onFrozen;
  }

  /** An unframed connection's reply or push frame, whose first byte arrived at `firstByteNs`. */
  reply(f: ReplyFrame, firstByteNs: number): void {
    if (this.frozen) {
      if (this.degraded && !this.desynced && !this.closed) this.untimedReply(f);
      return;
    }
    if (this.requestsLost && this.waiting() === null) {
      this.desync();
      this.onFrozen?.();
      return;
    }
    this.match(f, firstByteNs);
  }

  protected answered(target: PendingRequest, f: ReplyFrame, firstByteNs: number): void {
    this.counters.replies++;
    target.replies++;
    if (target.firstReplyNs < 0) target.firstReplyNs = firstByteNs;
    target.replyEnd = f.end;
    target.replyBytes += f.end - f.start;
    if (target.replyType === 0) target.replyType = f.type;
    if (f.type !== RespType.Error && f.type !== RespType.BlobError) {
      // Redis knows the command: a module we do not list.
      if (target.candidate !== undefined) learnProvenName(target.candidate);
      return;
    }
    target.errorPrefix = countErrorReply(this.counters, f.errorPrefix);
    target.replyType = f.type;
    if (target.entry !== null) target.entry.errors++;
  }

  /** The target (the one waiting() gave) got all its reply frames. */
  protected completed(target: PendingRequest): void {
    this.matchAt++;
    this.stampIfWritten(target);
  }

  protected pushed(f: ReplyFrame, kind: string, firstByteNs: number): void {
    this.counters.pushes++;
    const onEvent = this.options.onEvent;
    if (onEvent !== undefined) {
      onEvent({ type: 'push', conn: this.options.conn, atUs: firstByteNs / 1000, bytes: f.end - f.start, kind });
    }
  }
}
