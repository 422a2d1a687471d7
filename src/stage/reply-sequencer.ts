/**
 * The reply side of a framed connection: frames Redis's stream, matches each frame to its request
 * (SlotMatching, the connection's one matcher), runs the reply hooks (reply-run.ts: a promise holds
 * that frame and everything behind it), and hands replies on in request order, local answers at
 * their position, pushes in Redis's order. The tap, if any, is told how each chunk it is handed was
 * matched.
 */
import type { ReplyModes } from '../resp/reply-modes.js';
import { ReplyFramer } from '../resp/reply-framer.js';
import type { ReplyFrame } from '../resp/types.js';
import { ByteWindow } from './byte-window.js';
import { HeldBehind } from './held-behind.js';
import { SlotKind, SlotMatching, localMatch, type Slot } from './reply-slot.js';
import { ReplyRun, type ReplyRunOptions } from './reply-run.js';
import type { ByteSink, ConnectionContext, EndKind, FramedTap } from './types.js';

export interface ReplySequencerOptions extends ReplyRunOptions {
  conn: ConnectionContext;
  /** Toward the client. */
  down: ByteSink;
  /** The stream stopped being RESP. */
  onDesync: () => void;
  /** The reply being framed holds more than `maxHeldBytes` here, and canPassOn (the owner then calls passOn()). */
  onTooLong: () => void;
  /**
   * A stage holds a reply (a promise) while more than `maxHeldBytes` wait: the requests whose
   * replies have not gone and Redis's replies held (held-behind.ts). Told once.
   */
  onHeldTooMuch: () => void;
  /** While `watchPassOn` is set: canPassOn became true (checked at each flush). */
  onCanPassOn: () => void;
  /** @default FRAMED_REPLY_MAX_BYTES */
  maxHeldBytes?: number;
  /** Told how each chunk toward the client was matched (once the replies are matched here). */
  tap?: FramedTap;
}

/**
 * The most bytes of one reply not yet framed whole that are held for the frame stages (they see a
 * reply only whole): as the request side's FRAMED_REQUEST_MAX_BYTES. A reply has no server-side cap
 * (a large LRANGE, a 1 GiB GET from a Redis with proto-max-bulk-len raised): past this the
 * connection's stages turn off and its bytes pass as they come, so memory no longer grows with the
 * largest reply (nor does a reply past Node's largest Buffer fail to be copied whole).
 */
export const FRAMED_REPLY_MAX_BYTES = 512 * 1024 * 1024;

export class ReplySequencer extends ReplyRun {
  private readonly replyFramer: ReplyFramer;
  private readonly downBytes = new ByteWindow();
  private downFramedEnd = 0;
  protected readonly matching = new SlotMatching();
  protected readonly slots: Slot[] = [];
  protected downPendingBytes = 0;
  private downEnded: EndKind | undefined;
  protected passThrough = false;
  /** Redis stream bytes pushed so far (the offset the reply framer's frames are counted in). */
  private pushed = 0;
  private readonly maxHeld: number;
  destroyed = false;
  protected readonly heldBehind: HeldBehind;
  /** The owner waits to fall back (FrameChain.fallBackWhenFree): told at a flush once canPassOn. */
  watchPassOn = false;

  constructor(protected readonly o: ReplySequencerOptions) {
    super();
    this.maxHeld = o.maxHeldBytes ?? FRAMED_REPLY_MAX_BYTES;
    this.heldBehind = new HeldBehind(this.maxHeld, o.onHeldTooMuch);
    this.replyFramer = new ReplyFramer({
      frame: (f) => this.frame(f),
      // After PSYNC's answer the stream need not be RESP (an RDB): run() hands it on as it is.
      desync: () => this.matching.replicating || o.onDesync(),
    });
  }

  /** Bytes pending for the client (backpressure). */
  get pendingBytes(): number {
    return this.downPendingBytes;
  }

  /** The matcher's reply modes (seeded when framing starts on a live connection). */
  get replyModes(): ReplyModes {
    return this.matching.replyModes;
  }

  /** Matching starts here: the tap reads this sequencer's matches from now on. */
  startMatching(): void {
    this.o.tap?.repliesMatched(this.matching.replyModes);
  }

  /** The next request's place, in request order. */
  addSlot(slot: Slot): void {
    this.slots.push(slot);
    this.matching.add(slot);
    if (this.downWaiting) this.heldBehind.request(slot, this.slots, this.downPendingBytes);
  }

  /** Stops sequencing: everything held, in order, then the unframed rest; later bytes pass as is. */
  passOn(): Buffer {
    this.passThrough = true;
    for (const s of this.slots) if (s.slotKind === SlotKind.Local) s.ready = true;
    const down: Buffer[] = [];
    for (const s of this.slots) if (s.local) down.push(s.local);
    for (const r of this.ready) if (r.bytes) down.push(r.bytes);
    for (const r of this.incoming) if (r.bytes) down.push(r.bytes);
    down.push(this.downBytes.takeFrom(this.downFramedEnd));
    this.slots.length = this.ready.length = this.incoming.length = 0;
    this.downPendingBytes = 0;
    this.downWaiting = false;
    return Buffer.concat(down);
  }

  push(chunk: Buffer, nowNs: number): void {
    if (this.passThrough) {
      this.o.down.push(chunk, nowNs);
      return;
    }
    this.pushed += chunk.length;
    this.downBytes.push(chunk);
    this.replyFramer.push(chunk);
    if (this.passThrough) return;
    this.downBytes.dropBefore(this.downFramedEnd);
    // Frames already whole go through the stages first (run), then the bytes still held pass on.
    this.run();
    if (this.pushed - this.downFramedEnd > this.maxHeld && !this.passThrough) this.tooLong();
    if (this.downWaiting) this.heldBehind.check(this.slots, this.downPendingBytes);
  }

  /**
   * Redis closed its side. The end goes on once local answers still waiting for their delay and
   * promises in progress are through; replies held behind a dropped request are lost with it.
   */
  end(kind: EndKind, nowNs: number): void {
    // A reset after a FIN still waiting here (Redis closed, then refused a write: EPIPE) replaces
    // it: the chain is destroyed next, and a FIN waiting for local answers would never go.
    if (this.downEnded !== undefined && (kind !== 'reset' || this.downEndSent)) return;
    this.downEnded = kind;
    if (kind === 'reset') {
      this.incoming.length = this.ready.length = this.slots.length = 0;
      this.downPendingBytes = 0;
      this.downWaiting = false;
    }
    this.flush();
    void nowNs;
  }

  private downEndSent = false;
  private maybeEndDown(): void {
    if (this.downEnded === undefined || this.downEndSent || this.downWaiting || this.incoming.length > 0) return;
    for (const s of this.slots) if (s.slotKind === SlotKind.Local && !s.ready) return;
    this.downEndSent = true;
    this.o.down.end(this.downEnded, this.o.conn.nowNs());
  }

  /**
   * After PSYNC's answer the bytes held are the replication stream (an RDB), which the chain stops
   * framing for in any case, as a replication stream; otherwise the streams are still RESP. Until
   * canPassOn the reply stays held (checked again at the next chunk).
   */
  private tooLong(): void {
    if (this.matching.replicating) return this.o.onReplication();
    if (this.canPassOn) this.o.onTooLong();
  }

  /**
   * passOn() loses nothing: no local answer not yet sent or dropped request waits at its place
   * (holdsPlaces), and no stage holds a reply (a promise: redis_drop's never lets its reply go, and
   * passOn() would hand it on, with everything behind it, without the stage's say).
   */
  get canPassOn(): boolean {
    return !this.downWaiting && !this.holdsPlaces;
  }

  /** Requests whose replies (or local answers) have not all gone toward the client yet. */
  get unansweredRequests(): number {
    return this.slots.length;
  }

  /**
   * A local answer not yet sent or a dropped request waits at its place: passOn() could not put it
   * there in Redis's unframed stream, so the chain does not stop framing for a request or reply too
   * long to hold while this is so (canPassOn).
   */
  private get holdsPlaces(): boolean {
    return this.slots.some((s) => s.slotKind !== SlotKind.Forwarded);
  }

  private frame(f: ReplyFrame): void {
    // The replication stream, which run() hands on unframed once PSYNC's answer is through.
    if (this.matching.replicating) return;
    const wire = this.downBytes.slice(this.downFramedEnd, f.end);
    const frame = wire.subarray(f.start - this.downFramedEnd);
    this.downFramedEnd = f.end;
    this.downPendingBytes += wire.length;
    const match = this.matching.matchFrame(f, this.o.tap !== undefined);
    this.incoming.push({ bytes: wire, frame, slot: match.slot, match });
  }

  /** Hands on, in request order, every reply whose turn has come. */
  flush(): void {
    if (this.destroyed) return;
    this.emitDue();
    this.maybeEndDown();
    if (this.watchPassOn && this.canPassOn) this.o.onCanPassOn();
  }

  private emitDue(): void {
    const now = this.o.conn.nowNs();
    for (;;) {
      const head = this.slots[0];
      const next = this.ready[0];
      if (head === undefined || (next !== undefined && (next.slot === undefined || next.slot === head))) {
        if (next === undefined) return;
        if (head === undefined && next.slot !== undefined) return;
        this.ready.shift();
        if (next.slot) next.slot.emitted++;
        if (next.bytes) {
          this.downPendingBytes -= next.bytes.length;
          this.o.tap?.nextReply(next.match);
          this.o.down.push(next.bytes, now);
        } else {
          this.o.tap?.droppedReply(next.match);
        }
        continue;
      }
      if (head.slotKind === SlotKind.Local) {
        if (!head.ready) return;
        this.slots.shift();
        this.o.tap?.nextReply(localMatch(head));
        this.o.down.push(head.local!, now);
        continue;
      }
      if (head.slotKind === SlotKind.Dropped) return;
      if (head.complete && head.emitted === head.matched) {
        this.slots.shift();
        continue;
      }
      return;
    }
  }

}
