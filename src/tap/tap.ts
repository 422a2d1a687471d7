/**
 * One connection's tap: a RequestFramer on the up stream and a ReplyFramer on the down stream,
 * feeding a Correlator (which holds the semantics, see correlator.ts). The proxy calls it with the
 * chunks it forwards and the moments its delay lines delivered them; the tap never touches a
 * socket and never changes a byte.
 *
 * On a framed connection (framed(), framed-feed.ts) the tap reads the frame chain's frames and
 * matches instead, and frames only the bytes nobody else framed.
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
import type { FrameSink, ReplyFrame, RequestFrame } from '../resp/types.js';
import { CommandTable } from './command-table.js';
import { copyCounters } from './counters.js';
import type { ConnectionInfo, Counters, TapEvent } from './counter-types.js';
import { HEAD_ARGS } from './blocking.js';
import { ChunkTimes } from './chunk-times.js';
import { Correlator } from './correlator.js';
import { FramedFeed } from './framed-feed.js';
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

export class Tap extends FramedFeed implements ConnectionTap {
  readonly id: number;
  readonly openedAtMs: number;
  closedAtMs: number | undefined;
  /** Its place among the stats collector's live taps (stats/live-set.ts). */
  liveIndex = -1;
  protected readonly correlator: Correlator;
  protected readonly requests: RequestFramer;
  protected readonly replies: ReplyFramer;
  protected readonly chunkTimes = new ChunkTimes();
  private readonly wallClockMs: () => number;
  private upNowNs = 0;
  protected downOffset = 0;
  private upFrameEnd = 0;
  protected downFrameEnd = 0;
  protected readonly replySink: FrameSink<ReplyFrame>;
  private clientName: string | (() => string);

  constructor(protected readonly options: TapOptions) {
    super();
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
      // The requests before the bad one still get their replies (Correlator.requestsEnded).
      desync: () => correlator.requestsEnded(() => this.chunkTimes.clear()),
      empty: () => correlator.emptyRequest(),
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
    this.correlator.close(this.downOffset);
    this.options.onEvent?.({ type: 'close', conn: this.id, atUs: nowNs / 1000 });
    this.options.onClosed?.(this);
  }

  info(): ConnectionInfo {
    const info: ConnectionInfo = {
      id: this.id,
      client: this.client,
      openedAtMs: this.openedAtMs,
      outstanding: this.correlator.outstanding,
      desynced: this.correlator.desynced || this.correlator.requestsLost,
      degraded: this.correlator.everDegraded,
      protocol: this.replyModes.protocol,
      mode: this.replyModes.mode,
      counters: this.counters(),
    };
    if (this.closedAtMs !== undefined) info.closedAtMs = this.closedAtMs;
    if (this.correlator.replication) info.replication = true;
    return info;
  }

  get outstanding(): number {
    return this.correlator.outstanding;
  }

  get framable(): boolean {
    return !this.correlator.desynced && !this.correlator.degraded && !this.correlator.requestsLost;
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
    return this.correlator.everDegraded;
  }

  /** Requests not finished yet: the memory this connection holds for correlation. */
  get pendingRequests(): number {
    return this.correlator.pending;
  }

  /** Zeroes the counters (stats collector reset); requests in flight finish into the new period. */
  resetCounters(): void {
    this.correlator.resetCounters();
  }
}
