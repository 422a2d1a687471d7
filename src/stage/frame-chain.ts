/**
 * The frame stages of one connection, with the framing and sequencing they need. Exists only on a
 * connection that has (or had) a frame stage; without one the proxy never frames for the data path.
 *
 *   client bytes -> RequestFramer -> request queue -> onRequest of each stage, in order (request-run.ts)
 *       forward: bytes go on into the up byte chain (offsets mapped for the tap)
 *       answer:  a local reply, ready after the link's up delay, placed at the request's position
 *       drop:    its position never gets a reply, so every later reply waits (until close)
 *   Redis bytes -> ReplyFramer -> SlotMatching (which request, or a push) -> onReply of each stage
 *       -> sequencer: replies leave in request order, pushes in Redis's order -> down sink
 *
 * These are the connection's only framers and its only matcher: the tap (`tap`) is handed each
 * request frame and each match, and frames only the bytes a stage made.
 *
 * A stage's promise holds that frame and everything behind it in that direction. On a framer
 * desync both directions fall back to passing bytes through unchanged (in order, holds released),
 * and so they do once a replica's PSYNC or SYNC is answered: no stage acts on a replication stream.
 * On a request desync or an EXEC whose replies cannot be followed the fall back waits until nothing
 * holds a place (frame-fall-back.ts, with the limits on what the chain holds).
 */
import type { RequestModes } from '../resp/request-modes.js';
import type { ReplyModes } from '../resp/reply-modes.js';
import { FramedRequests } from './framed-requests.js';
import { LocalAnswers } from './local-answers.js';
import { OffsetMap } from './offset-map.js';
import { ReplySequencer } from './reply-sequencer.js';
import { RequestRun } from './request-run.js';
import type { NamedFrameStage } from './run-stages.js';
import type { ByteSink, ByteStage, ConnectionContext, EndKind, FramedTap, FrameStage, Scheduler } from './types.js';

export interface FrameChainOptions {
  conn: ConnectionContext;
  scheduler: Scheduler;
  /** One-way up delay (ns) a locally answered request pays before its reply starts down. */
  upDelayNs: () => number;
  /** Into the up byte chain. */
  up: ByteSink;
  /** Toward the client (the tap, then the down byte chain). */
  down: ByteSink;
  log: (line: string) => void;
  /**
   * Set when framing starts on a live connection (connection.ts): the client stream offset of the
   * first byte this chain sees, the modes the tap followed up to there, and whether requests wait
   * for `startReplies()` (until the replies to the requests that went by unframed are through).
   */
  live?: { clientOffset: number; firstSeq: number; requestModes: RequestModes; replyModes: ReplyModes; holdRequests: boolean };
  /** The frame stages, in order; the owner may change the list at any time (changes show at once). */
  stages?: NamedFrameStage[];
  /** @default FRAMED_REQUEST_MAX_BYTES (framed-requests.ts); smaller in tests */
  maxRequestBytes?: number;
  /** @default FRAMED_REPLY_MAX_BYTES (reply-sequencer.ts); smaller in tests */
  maxReplyBytes?: number;
  /** The connection's tap, fed this chain's frames and matches. @default none */
  tap?: FramedTap;
}

/** The frame chain's name in the up byte chain, where its request side runs ahead of the link. */
export const FRAME_CHAIN_NAME = 'frame-chain';

/** The up side is a ByteStage: the head of the up byte chain, ahead of the link. */
export class FrameChain extends RequestRun implements ByteStage {
  readonly stages: NamedFrameStage[];
  // Up.
  protected readonly requests: FramedRequests;
  private upEnded: EndKind | undefined;
  protected readonly offsets: OffsetMap;
  readonly replies: ReplySequencer;
  protected readonly localAnswers: LocalAnswers;

  constructor(protected readonly o: FrameChainOptions) {
    super();
    this.stages = o.stages ?? [];
    const live = o.live;
    this.holding = live?.holdRequests === true;
    if (live !== undefined) {
      this.requestModes.copyFrom(live.requestModes);
      this.seq = live.firstSeq;
    }
    const clientBase = live?.clientOffset ?? 0;
    this.offsets = new OffsetMap(clientBase);
    const tap = o.tap;
    this.requests = new FramedRequests({
      clientBase,
      tap,
      ...this.requestFallBacks(),
      maxHeldBytes: o.maxRequestBytes,
    });
    const replies = new ReplySequencer({
      conn: o.conn,
      stages: this.stages,
      down: o.down,
      ...this.replyFallBacks(),
      maxHeldBytes: o.maxReplyBytes,
      tap,
    });
    this.replies = replies;
    replies.replyModes.onRefused = (kind) => this.requestModes.refused(kind);
    this.localAnswers = new LocalAnswers(o.conn, o.scheduler, o.upDelayNs, () => this.replies.flush());
  }

  /**
   * Redis's bytes come to the reply side from now on. On a live connection: the replies to every
   * request that went by unframed are through, so matching goes on from the tap's modes, and
   * forwarding starts.
   */
  startReplies(): void {
    if (this.o.live !== undefined) this.replies.replyModes.copyFrom(this.o.live.replyModes);
    this.replies.startMatching();
    if (!this.holding) return;
    this.holding = false;
    this.runRequests();
  }

  add(name: string, stage: FrameStage, index: number): void {
    this.stages.splice(Math.max(0, Math.min(index, this.stages.length)), 0, { name, stage });
  }

  remove(name: string): void {
    const i = this.stages.findIndex((s) => s.name === name);
    if (i < 0) return;
    const [s] = this.stages.splice(i, 1);
    s!.stage.destroy?.();
  }

  get names(): string[] {
    return this.stages.map((s) => s.name);
  }

  /** Request bytes pending here (the up side's ByteStage.pendingBytes), for backpressure. */
  get pendingBytes(): number {
    // While stopping, what follows the bad request or the EXEC waits here too (fallBackWhenFree).
    return this.stopping === undefined ? this.requests.pendingBytes : this.requests.heldBytes;
  }
  /** Reply bytes pending here, for backpressure. */
  get downPendingBytes(): number {
    return this.replies.pendingBytes;
  }

  /** Never taken out of a live chain: once framed, a connection stays framed. */
  drain(): void {}

  /** The client stream offset the tap knows, for an offset of the stream written to Redis. */
  clientOffsetAt(outOffset: number): number {
    return this.offsets.clientOffsetAt(outOffset);
  }
  // ---- up ----

  push(chunk: Buffer, nowNs: number): void {
    const passing = this.passThrough;
    this.requests.push(chunk, nowNs);
    if (passing) return this.forwardRaw(chunk, nowNs);
    // Falling back while framing it passed the whole chunk on (takeAll).
    if (this.passThrough) return;
    this.runRequests();
  }

  end(kind: EndKind, nowNs: number): void {
    // A reset after a FIN still held here replaces it (see ReplySequencer.end).
    if (this.upEnded !== undefined && (kind !== 'reset' || this.upEndSent)) return;
    this.upEnded = kind;
    if (kind === 'reset') {
      // A reset does not wait for held requests: they are lost, as on a network.
      this.requests.clear();
      this.upWaiting = false;
    }
    this.maybeEndUp(nowNs);
  }

  protected upEndSent = false;
  protected maybeEndUp(nowNs: number): void {
    if (this.upEnded === undefined || this.upEndSent || this.upWaiting || this.requests.queue.length > 0) return;
    // A FIN goes after the bytes held while stopping (Redis answers a bad request before it reads the end); a reset does not wait.
    if (this.stopping !== undefined && !this.passThrough && this.upEnded !== 'reset') return;
    this.upEndSent = true;
    this.o.up.end(this.upEnded, nowNs);
  }

  /** Redis's bytes, toward the client through the reply side. */
  pushReply(chunk: Buffer, nowNs: number): void {
    this.replies.push(chunk, nowNs);
  }

  endReply(kind: EndKind, nowNs: number): void {
    this.replies.end(kind, nowNs);
  }

  destroy(): void {
    this.replies.destroyed = true;
    this.localAnswers.destroy();
    for (const s of this.stages) s.stage.destroy?.();
  }
}
