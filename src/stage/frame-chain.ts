/**
 * The frame stages of one connection, with the framing and sequencing they need. Exists only on a
 * connection that has (or had) a frame stage; without one the proxy never frames for the data path.
 *
 *   client bytes -> RequestFramer -> request queue -> onRequest of each stage, in order
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
import { CommandKind } from '../resp/command-kind.js';
import { RequestModes } from '../resp/request-modes.js';
import { unfollowableExec } from '../resp/exec-effects.js';
import { FramedRequests, type FramedRequest } from './framed-requests.js';
import { FrameFallBack } from './frame-fall-back.js';
import { DISCARD, EMPTY_LINE, withStandIn } from './stand-in.js';
import { LocalAnswers } from './local-answers.js';
import { OffsetMap } from './offset-map.js';
import { SlotKind, newSlot } from './reply-slot.js';
import type { ReplyModes } from '../resp/reply-modes.js';
import { ReplySequencer } from './reply-sequencer.js';
import { runStages, type NamedFrameStage } from './run-stages.js';
import type { ByteSink, ByteStage, ConnectionContext, EndKind, FramedTap, FrameStage, RequestAction, RequestInfo, Scheduler } from './types.js';

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
export class FrameChain extends FrameFallBack implements ByteStage {
  readonly stages: NamedFrameStage[];
  // Up.
  protected readonly requests: FramedRequests;
  protected upWaiting = false;
  private upEnded: EndKind | undefined;
  private seq = 0;
  private readonly requestModes = new RequestModes();
  protected readonly offsets: OffsetMap;
  readonly replies: ReplySequencer;
  private holding: boolean;
  private readonly localAnswers: LocalAnswers;

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

  /** `first`: a request a stage's promise decided, handed on before the requests queued behind it. */
  private runRequests(first?: () => void): void {
    this.localAnswers.whileDeciding(() => {
      first?.();
      this.decideQueued();
    });
    if (this.unfollowable) this.stopping ??= 'replies after this EXEC cannot be matched';
    if (this.stopping !== undefined) this.fallBackWhenFree();
    this.maybeEndUp(this.o.conn.nowNs());
  }

  private decideQueued(): void {
    const out: Buffer[] = [];
    while (!this.upWaiting && !this.holding && this.requests.queue.length > 0 && !this.passThrough && !this.unfollowable) {
      const r = this.requests.queue[0]!;
      if (r.info.seq < 0) {
        // EXEC ends the transaction, it is not queued in it: a stage may answer it (decide()).
        const inMulti = this.requestModes.inMulti && r.kind !== CommandKind.Exec;
        (r as { info: RequestInfo }).info = { ...r.info, seq: this.seq++, inMulti };
      }
      const decided = runStages<RequestAction>(this.stages, (s) => s.onRequest?.(r.info), isForward, (a) => {
        this.upWaiting = false;
        // Inside the run: an answer due at once goes after its stand-in went up (a fall back it
        // allows hands on the bytes behind it), and after the requests behind it are decided.
        this.runRequests(() => {
          this.decide(r, a, out);
          this.flushUp(out);
        });
      });
      if (decided === undefined) {
        this.upWaiting = true;
        break;
      }
      this.decide(r, decided, out);
    }
    this.flushUp(out);
  }

  private decide(r: FramedRequest, a: RequestAction, out: Buffer[]): void {
    if (this.requests.queue[0] !== r) return;
    this.requests.shift();
    // Its gap holds an empty request, which Redis reads before it (in request order, as here).
    if (r.afterEmpty) this.requestModes.empty();
    if (a.kind === 'forward') {
      const modes = this.requestModes;
      const argc = r.info.args.length + 1;
      const kind = modes.inMulti ? modes.inMultiKind(r.kind, argc, r.hello) : r.kind;
      const slot = newSlot(SlotKind.Forwarded, r.info, kind, r.hello, modes.admit(kind, argc));
      if (kind === CommandKind.ExecFollowed) {
        const queued = modes.takeQueued();
        slot.queued = queued;
        // Redis's replies from here on cannot be told apart (exec-effects.ts): as after a desync.
        if (unfollowableExec(slot.expected, queued)) this.unfollowable = true;
      }
      this.replies.addSlot(slot);
      this.o.tap?.decided(r.info.seq, slot.expected, false);
      out.push(r.wire);
      this.offsets.handedOn(r.wire.length, r.clientEnd);
    } else if (a.kind === 'answer' && r.kind === CommandKind.Exec && this.requestModes.inMulti) {
      // Left alone, Redis would keep the transaction open and queue what comes next: Redis gets
      // DISCARD in EXEC's place (as Redis discards a transaction whose EXEC it rejects), and its
      // reply, if the client is to get one, is shown as the answer.
      const argc = 1;
      const slot = newSlot(SlotKind.Forwarded, r.info, CommandKind.Discard, 0, this.requestModes.admit(CommandKind.Discard, argc));
      slot.answer = a.reply;
      this.replies.addSlot(slot);
      this.o.tap?.decided(r.info.seq, slot.expected, false);
      this.standIn(r, DISCARD, out);
    } else if (a.kind === 'answer') {
      // Redis reads an empty line in its place (and the blank lines before it): nothing runs, no
      // reply, no MONITOR line, but Redis ends what lasts one command (CLIENT REPLY SKIP, CLIENT
      // CACHING, ASKING) here, as it would have at this request, not at the next one.
      this.standIn(r, EMPTY_LINE, out);
      // Under CLIENT REPLY OFF/SKIP Redis would not have answered it, an error included.
      const answered = this.requestModes.answeredUnseen();
      this.o.tap?.decided(r.info.seq, answered ? 1 : 0, true);
      if (!answered) return;
      const slot = newSlot(SlotKind.Local, r.info, 0, 0, 0);
      slot.local = a.reply;
      this.replies.addSlot(slot);
      this.localAnswers.hold(slot);
    } else {
      this.replies.addSlot(newSlot(SlotKind.Dropped, r.info, 0, 0, 0));
    }
  }

  private standIn(r: FramedRequest, standIn: Buffer, out: Buffer[]): void {
    const wire = withStandIn(r.wire, r.info.bytes.length, standIn);
    out.push(wire);
    this.offsets.handedOn(wire.length, r.clientEnd);
  }

  private flushUp(out: Buffer[]): void {
    if (out.length === 0) return;
    const chunk = out.length === 1 ? out[0]! : Buffer.concat(out);
    out.length = 0;
    this.o.up.push(chunk, this.o.conn.nowNs());
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

const isForward = (a: RequestAction): boolean => a.kind === 'forward';
