/**
 * One connection's tap: a RequestFramer on the up stream and a ReplyFramer on the down stream,
 * feeding a Correlator (which holds the semantics, see correlator.ts). The proxy calls it with the
 * chunks it forwards and the moments its delay lines delivered them; the tap never touches a
 * socket and never changes a byte.
 *
 * On a framed connection (framed()) the frame chain's framers and its sequencer's matcher are the
 * connection's only ones: the tap takes their request frames and matches, and its own framers see
 * only the bytes nobody else framed (replies a stage made, and the stream after the chain gave up).
 *
 * bytesUp/bytesDown and chunksUp/chunksDown count socket reads as the proxy passes them in, framed
 * or not. unparsedBytes counts, in both directions, every byte from a framer's desync point on.
 */
import { realClock } from '../clock.js';
import { ReplyFramer } from '../resp/reply-framer.js';
import { requestCommandName } from '../resp/request-frame.js';
import { RequestFramer } from '../resp/request-framer.js';
import type { ReplyModes } from '../resp/reply-modes.js';
import type { RequestModes } from '../resp/request-modes.js';
import type { Framer, FrameSink, ReplyFrame, RequestFrame } from '../resp/types.js';
import type { FramedTap, MatchedReply } from '../stage/types.js';
import { CommandTable } from './command-table.js';
import { copyCounters } from './counters.js';
import type { ConnectionInfo, Counters, TapEvent } from './counter-types.js';
import { HEAD_ARGS } from './blocking.js';
import { ChunkTimes } from './chunk-times.js';
import { Correlator } from './correlator.js';
import type { PendingBudget } from './pending-budget.js';
import type { ConnectionTap } from './types.js';

export interface TapOptions {
  /** Connection id, put in events and ConnectionInfo. */
  id: number;
  /**
   * Client address as the proxy saw it ("127.0.0.1:51234" or "unix"), or how to learn it: asked on
   * first read of `client` (the open event, /connections), so a connection nobody asks about costs
   * no getpeername at accept.
   */
  client: string | (() => string);
  /** Per-command stats to record into; a private table when absent. */
  commands?: CommandTable;
  /** Receives open/close, one event per finished command, and pushes. @default none */
  onEvent?: (event: TapEvent) => void;
  /** Keyed hash of a request's first key, for command events only. @default none (no keyHash) */
  keyHash?: (key: Buffer) => string;
  /** Have the framer collect argument sizes for command events. @default false */
  argSizes?: boolean;
  /** Monotonic time of the open event. @default realClock.nowNs() */
  openNs?: number;
  /** Wall clock for openedAtMs/closedAtMs. @default Date.now */
  wallClockMs?: () => number;
  /** Bound on unfinished requests, shared by a stats collector's taps. @default a private default budget */
  budget?: PendingBudget;
  /** Called once when the tap closes (the stats collector folds its counters into its totals). */
  onClosed?: (tap: Tap) => void;
}

export class Tap implements ConnectionTap {
  readonly id: number;
  readonly openedAtMs: number;
  closedAtMs: number | undefined;
  private readonly correlator: Correlator;
  private readonly requests: RequestFramer;
  private readonly replies: ReplyFramer;
  private readonly chunkTimes = new ChunkTimes();
  private readonly wallClockMs: () => number;
  private upNowNs = 0;
  private downOffset = 0;
  private unparsedSeen = 0;
  private upFrameEnd = 0;
  private downFrameEnd = 0;
  /** Set on a framed connection: requests come from the frame chain. */
  private fed: FramedTap | undefined;
  /** Set once the sequencer matches Redis's frames: its modes. */
  private fedModes: ReplyModes | undefined;
  /** The chain's request framer, once it lost the stream (its unparsed bytes are this tap's). */
  private fedUpFramer: Framer | undefined;
  /** The match the next chunk toward the client stands for, and the one being framed here. */
  private nextMatch: MatchedReply | undefined;
  private framingMatch: MatchedReply | undefined;
  private framingFirst = false;
  private framingNs = 0;
  private readonly replySink: FrameSink<ReplyFrame>;
  private clientName: string | (() => string);

  constructor(private readonly options: TapOptions) {
    this.id = options.id;
    this.clientName = options.client;
    this.wallClockMs = options.wallClockMs ?? Date.now;
    this.openedAtMs = this.wallClockMs();
    const correlator = new Correlator({
      conn: options.id,
      commands: options.commands ?? new CommandTable(),
      onEvent: options.onEvent,
      keyHash: options.keyHash,
      budget: options.budget,
    });
    this.correlator = correlator;
    const onDesync = (): void => {
      correlator.desync();
      this.chunkTimes.clear();
    };
    const requestSink: FrameSink<RequestFrame> = {
      frame: (f) => {
        this.upFrameEnd = f.end;
        correlator.request(f, requestCommandName(f), this.upNowNs);
      },
      desync: onDesync,
    };
    const replySink: FrameSink<ReplyFrame> = (this.replySink = {
      frame: (f) => {
        this.downFrameEnd = f.end;
        correlator.reply(f, this.chunkTimes.timeAt(f.start));
      },
      desync: onDesync,
    });
    this.requests = new RequestFramer(requestSink, { headArgs: HEAD_ARGS, argSizes: options.argSizes === true });
    this.replies = new ReplyFramer(replySink);
    const openNs = options.openNs ?? realClock.nowNs();
    options.onEvent?.({ type: 'open', conn: this.id, atUs: openNs / 1000, client: this.client });
  }

  get client(): string {
    const c = this.clientName;
    if (typeof c === 'string') return c;
    return (this.clientName = c());
  }

  upChunk(chunk: Buffer, nowNs: number): void {
    const c = this.correlator.counters;
    c.bytesUp += chunk.length;
    c.chunksUp++;
    if (this.fed !== undefined) {
      // The frame chain framed this chunk as it went by.
      if (this.fedUpFramer !== undefined) this.countUnparsed();
      return;
    }
    // Every request completed by this chunk arrived now: the framer reports them synchronously.
    this.upNowNs = nowNs;
    this.requests.push(chunk);
    if (this.requests.desynced) this.countUnparsed();
  }

  upWritten(endOffset: number, nowNs: number): void {
    this.correlator.upWritten(endOffset, nowNs);
  }

  downChunk(chunk: Buffer, nowNs: number): void {
    const c = this.correlator.counters;
    c.bytesDown += chunk.length;
    c.chunksDown++;
    if (this.fedModes !== undefined) return this.fedDownChunk(chunk, nowNs);
    if (!this.correlator.desynced) this.chunkTimes.add(this.downOffset, nowNs);
    this.downOffset += chunk.length;
    this.replies.push(chunk);
    if (this.replies.desynced) this.countUnparsed();
  }

  downWritten(endOffset: number, nowNs: number): void {
    this.correlator.downWritten(endOffset, nowNs);
  }

  close(nowNs: number): void {
    if (this.closedAtMs !== undefined) return;
    this.closedAtMs = this.wallClockMs();
    this.correlator.close();
    this.options.onEvent?.({ type: 'close', conn: this.id, atUs: nowNs / 1000 });
    this.options.onClosed?.(this);
  }

  info(): ConnectionInfo {
    const info: ConnectionInfo = {
      id: this.id,
      client: this.client,
      openedAtMs: this.openedAtMs,
      outstanding: this.correlator.outstanding,
      desynced: this.correlator.desynced,
      degraded: this.correlator.degraded,
      protocol: this.replyModes.protocol,
      mode: this.replyModes.mode,
      counters: this.counters(),
    };
    if (this.closedAtMs !== undefined) info.closedAtMs = this.closedAtMs;
    return info;
  }

  get framable(): boolean {
    return !this.correlator.desynced && !this.correlator.degraded;
  }

  get upOffset(): number {
    return this.requests.offset;
  }

  get upAtFrameEnd(): boolean {
    return this.upFrameEnd === this.requests.offset;
  }

  get downAtFrameEnd(): boolean {
    return this.downFrameEnd === this.replies.offset;
  }

  get requestMark(): number {
    return this.correlator.requestMark;
  }

  answeredBefore(mark: number): boolean {
    return this.correlator.answeredBefore(mark);
  }

  get requestModes(): RequestModes {
    return this.correlator.requestModes;
  }

  get replyModes(): ReplyModes {
    return this.fedModes ?? this.correlator.replyModes;
  }

  /** A copy of this connection's counters (since it opened or since the last reset). */
  counters(): Counters {
    return copyCounters(this.correlator.counters);
  }

  /** The live counters, not copied: for the stats collector's sums only. */
  get liveCounters(): Readonly<Counters> {
    return this.correlator.counters;
  }

  /** True once the tap gave up timing at the pending-request bound (pending-budget.ts). */
  get degraded(): boolean {
    return this.correlator.degraded;
  }

  /** Requests not finished yet: the memory this connection holds for correlation. */
  get pendingRequests(): number {
    return this.correlator.pending;
  }

  /** Zeroes the counters (stats collector reset); requests in flight finish into the new period. */
  resetCounters(): void {
    this.correlator.resetCounters();
  }

  /**
   * This tap reads the frame chain's frames and matches from now on (FramedTap). `arrivalNs`: when
   * a chunk really arrived, if not when the chain was handed it (client TLS).
   */
  framed(arrivalNs?: () => number): FramedTap {
    const correlator = this.correlator;
    this.fed = {
      requestFramer: { headArgs: HEAD_ARGS, argSizes: this.options.argSizes === true },
      request: (f, name, endOffset, nowNs) => correlator.request(f, name, arrivalNs === undefined ? nowNs : arrivalNs(), endOffset),
      requestsDesynced: (framer) => {
        this.fedUpFramer = framer;
        correlator.desync();
        this.chunkTimes.clear();
      },
      repliesMatched: (modes) => {
        this.fedModes = modes;
        this.replySink.frame = (f) => this.fedFrame(f);
      },
      nextReply: (m) => (this.nextMatch = m),
      droppedReply: (m) => correlator.fedEnd(m, true),
    };
    return this.fed;
  }

  /** A chunk toward the client on a framed connection: a frame the chain framed, or bytes to frame here. */
  private fedDownChunk(chunk: Buffer, nowNs: number): void {
    const m = this.nextMatch;
    this.nextMatch = undefined;
    const start = this.downOffset;
    this.downOffset += chunk.length;
    const f = m?.frame;
    if (f !== undefined && this.replies.atFrameBoundary) {
      this.replies.skip(chunk.length);
      // The sequencer's copy of the frame, placed in the stream toward the client.
      f.start = start;
      f.end = this.downFrameEnd = this.downOffset;
      this.correlator.fedFrame(m!, f, nowNs, true);
      this.correlator.fedEnd(m!, false);
      return;
    }
    // Bytes nobody framed: a reply a stage made, or the stream after the chain stopped framing.
    this.framingMatch = m;
    this.framingFirst = true;
    this.framingNs = nowNs;
    this.replies.push(chunk);
    this.framingMatch = undefined;
    if (m !== undefined) this.correlator.fedEnd(m, false);
    if (this.replies.desynced) this.countUnparsed();
  }

  private fedFrame(f: ReplyFrame): void {
    this.downFrameEnd = f.end;
    const m = this.framingMatch;
    // After the chain stopped framing no match is known: the bytes are counted, not matched.
    if (m === undefined) return;
    this.correlator.fedFrame(m, f, this.framingNs, this.framingFirst);
    this.framingFirst = false;
  }

  private countUnparsed(): void {
    const total = (this.fedUpFramer ?? this.requests).unparsedBytes + this.replies.unparsedBytes;
    this.correlator.counters.unparsedBytes += total - this.unparsedSeen;
    this.unparsedSeen = total;
  }
}
