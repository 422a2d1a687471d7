/**
 * A connection's frame stages and the frame chain that runs them, started when the first frame
 * stage reaches the connection: at accept, or on a live connection at a frame boundary the tap
 * knows of. The frame chain's request side goes in at the head of the up byte chain (ahead of the
 * link; with client TLS right after the TLS stage, where the bytes are plaintext); Redis's bytes
 * go to its reply side (`downIn`) instead of the down path.
 *
 * On a live connection the tap says where framing can start. Requests: from the first client chunk
 * that starts on a frame boundary. Replies: once Redis answered every request that went by
 * unframed, at a reply frame boundary; until then the framed requests wait, so the reply side
 * starts where the tap's matching left off, with the tap's modes (protocol, subscriptions, MULTI,
 * CLIENT REPLY). With no tap nothing says where a frame starts: the connection stays unframed.
 */
import { FRAME_CHAIN_NAME, FrameChain } from '../stage/frame-chain.js';
import type { NamedFrameStage } from '../stage/run-stages.js';
import type { ByteSink, ConnectionContext, EndKind, FrameStageFactory, Scheduler } from '../stage/types.js';
import type { ChunkTarget } from '../tap/tap-after.js';
import type { ConnectionTap } from '../tap/types.js';
import type { DirectionPath } from './direction-path.js';

export interface FramingOptions {
  context: ConnectionContext;
  scheduler: Scheduler;
  upDelayNs: () => number;
  up: DirectionPath;
  down: DirectionPath;
  tap: ConnectionTap | undefined;
  /** When a client chunk really arrived, if not when it was read here (client TLS). */
  tapArrivalNs?: () => number;
  log: (line: string) => void;
}

export class Framing {
  private frames: FrameChain | undefined;
  readonly stages: NamedFrameStage[] = [];
  /** Where Redis's bytes go: the down path, or the frame chain's reply side. */
  downIn: ChunkTarget;
  /** A frame stage came live: framing starts at the client stream's next frame boundary. */
  private wanted = false;
  /** Framing started live: the request mark whose replies must be through before replies are framed. */
  private repliesMark: number | undefined;

  constructor(private readonly o: FramingOptions) {
    this.downIn = o.down.entry;
  }

  /** False when the stage cannot reach this connection: unframed, and no frame boundary known. */
  add(stage: FrameStageFactory, index: number, atAccept: boolean): boolean {
    if (this.frames === undefined && !this.wanted) {
      if (atAccept) this.start(undefined);
      else {
        if (this.o.tap === undefined || !this.o.tap.framable) return false;
        this.wanted = true;
        this.tryStart();
      }
    }
    this.stages.splice(Math.max(0, Math.min(index, this.stages.length)), 0, { name: stage.name, stage: stage.create(this.o.context) });
    return true;
  }

  remove(name: string): void {
    const i = this.stages.findIndex((s) => s.name === name);
    if (i >= 0) this.stages.splice(i, 1)[0]!.stage.destroy?.();
  }

  /** Called before each client chunk goes in. */
  beforeRequest(): void {
    if (this.wanted) this.tryStart();
  }

  /** Called after each Redis chunk went in (the tap has read it). */
  afterReply(): void {
    if (this.repliesMark !== undefined) this.tryStartReplies();
  }

  /** The client stream offset the tap counts in, for an offset of the stream written to Redis. */
  clientOffsetAt(endOffset: number): number {
    return this.frames === undefined ? endOffset : this.frames.clientOffsetAt(endOffset);
  }

  /** Reply bytes the frame chain holds. */
  get downPendingBytes(): number {
    return this.frames === undefined ? 0 : this.frames.downPendingBytes;
  }

  /** Redis closed its side. */
  endReplies(kind: EndKind, nowNs: number): void {
    if (this.downIn === this.o.down.entry) this.o.down.end(kind, nowNs);
    else this.frames!.endReply(kind, nowNs);
  }

  private start(tap: ConnectionTap | undefined): void {
    const o = this.o;
    const down = o.down;
    const mark = tap?.requestMark ?? 0;
    const live = tap && {
      clientOffset: tap.upOffset,
      firstSeq: mark,
      requestModes: tap.requestModes,
      replyModes: tap.replyModes,
      holdRequests: true,
    };
    const create = (next: ByteSink): FrameChain =>
      (this.frames = new FrameChain({
        conn: o.context,
        scheduler: o.scheduler,
        upDelayNs: o.upDelayNs,
        up: next,
        down: { push: (c, t) => down.entry.push(c, t), end: (k, t) => down.chain.end(k, t) },
        log: o.log,
        stages: this.stages,
        live,
        tap: o.tap?.framed(o.tapArrivalNs),
      }));
    o.up.chain.add({ name: FRAME_CHAIN_NAME, create: (_c, next) => create(next) }, o.up.frameChainAt);
    // Frames leave one push each: let each direction's pushes of a turn go out in one write.
    o.up.sink.coalesceTurns();
    o.down.sink.coalesceTurns();
    if (tap === undefined) this.framedReplies();
    else {
      this.repliesMark = mark;
      this.tryStartReplies();
    }
  }

  private tryStart(): void {
    const tap = this.o.tap!;
    if (!tap.framable) {
      this.wanted = false;
      this.o.log(`conn ${this.o.context.id}: frame stages not applied (the tap lost the stream's frame boundaries)`);
      return;
    }
    if (!tap.upAtFrameEnd) return;
    this.wanted = false;
    this.start(tap);
  }

  private tryStartReplies(): void {
    const tap = this.o.tap!;
    if (!tap.answeredBefore(this.repliesMark!) || !tap.downAtFrameEnd) return;
    this.repliesMark = undefined;
    this.framedReplies();
  }

  private framedReplies(): void {
    const frames = this.frames!;
    this.downIn = { push: (c, t) => frames.pushReply(c, t) };
    frames.startReplies();
  }
}
