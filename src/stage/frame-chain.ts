/**
 * The frame stages of one connection, with the framing and sequencing they need. Exists only on a
 * connection that has (or had) a frame stage; without one the proxy never frames for the data path.
 *
 *   client bytes -> RequestFramer -> request queue -> onRequest of each stage, in order
 *       forward: bytes go on into the up byte chain (offsets mapped for the tap)
 *       answer:  a local reply, ready after the link's up delay, placed at the request's position
 *       drop:    its position never gets a reply, so every later reply waits (until close)
 *   Redis bytes -> ReplyFramer -> ReplyMatcher (which request, or a push) -> onReply of each stage
 *       -> sequencer: replies leave in request order, pushes in Redis's order -> down sink
 *
 * A stage's promise holds that frame and everything behind it in that direction. On a framer
 * desync both directions fall back to passing bytes through unchanged (in order, holds released).
 */
import type { EndKind } from '../link/delay-line.js';
import type { Scheduler } from '../link/scheduler.js';
import { requestCommandName } from '../resp/request-frame.js';
import { RequestFramer } from '../resp/request-framer.js';
import { ReplyFramer } from '../resp/reply-framer.js';
import type { ReplyFrame } from '../resp/types.js';
import { commandKind, helloProtocol } from '../tap/command-kind.js';
import { RequestModes } from '../tap/request-modes.js';
import { buildRequestInfo } from './request-info.js';
import { ReplyMatcher, SlotKind, newSlot, type Slot } from './reply-slots.js';
import { runStages, type NamedFrameStage } from './run-stages.js';
import type { ByteSink, ConnectionContext, FrameStage, ReplyAction, RequestAction, RequestInfo } from './types.js';

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
}

interface PendingRequest {
  info: RequestInfo;
  /** What goes to Redis if forwarded: gap bytes before the frame (blank lines) and the frame. */
  wire: Buffer;
  clientEnd: number;
  kind: number;
  hello: number;
}

interface RedisItem {
  bytes: Buffer | null;
  frame: Buffer;
  slot: Slot | undefined;
}

export class FrameChain {
  readonly stages: NamedFrameStage[] = [];
  private passThrough = false;
  // Up.
  private readonly requestFramer: RequestFramer;
  private upCarry: Buffer | null = null;
  private upCarryStart = 0;
  private upBuf: Buffer = Buffer.alloc(0);
  private upBufStart = 0;
  private upFramedEnd = 0;
  private readonly requests: PendingRequest[] = [];
  private upHeld = 0;
  private upWaiting = false;
  private upEnded: EndKind | undefined;
  private seq = 0;
  private readonly requestModes = new RequestModes();
  private outOffset = 0;
  private readonly outEnds: number[] = [];
  private readonly clientEnds: number[] = [];
  // Down.
  private readonly replyFramer: ReplyFramer;
  private downBuf: Buffer = Buffer.alloc(0);
  private downBufStart = 0;
  private downCarry: Buffer | null = null;
  private downFramedEnd = 0;
  private readonly matcher = new ReplyMatcher();
  private readonly incoming: RedisItem[] = [];
  private downWaiting = false;
  private readonly ready: RedisItem[] = [];
  private readonly slots: Slot[] = [];
  private downHeld = 0;
  private downEnded: EndKind | undefined;
  private destroyed = false;
  private readonly timers = new Set<ReturnType<Scheduler['schedule']>>();

  constructor(private readonly o: FrameChainOptions) {
    this.requestFramer = new RequestFramer({
      frame: (f) => {
        const bytes = this.upBuf.subarray(f.start - this.upBufStart, f.end - this.upBufStart);
        const wire = this.upBuf.subarray(this.upFramedEnd - this.upBufStart, f.end - this.upBufStart);
        this.upFramedEnd = f.end;
        const tapName = requestCommandName(f);
        this.requests.push({
          info: buildRequestInfo(-1, Buffer.from(bytes), f.inline, tapName, false),
          wire: Buffer.from(wire),
          clientEnd: f.end,
          kind: commandKind(tapName, f),
          hello: helloProtocol(f),
        });
        this.upHeld += wire.length;
      },
      desync: () => this.fallBack(),
    });
    this.replyFramer = new ReplyFramer({
      frame: (f) => this.replyFrame(f),
      desync: () => this.fallBack(),
    });
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

  /** Bytes held here, both directions, for backpressure. */
  get upHeldBytes(): number {
    return this.upHeld;
  }
  get downHeldBytes(): number {
    return this.downHeld;
  }

  /** The client stream offset the tap knows, for an offset of the stream written to Redis. */
  clientOffsetAt(outOffset: number): number {
    let end = -1;
    while (this.outEnds.length > 0 && this.outEnds[0]! <= outOffset) {
      this.outEnds.shift();
      end = this.clientEnds.shift()!;
    }
    return end < 0 ? this.lastClientEnd : (this.lastClientEnd = end);
  }
  private lastClientEnd = 0;

  // ---- up ----

  push(chunk: Buffer, nowNs: number): void {
    if (this.passThrough) return this.forwardRaw(chunk, nowNs);
    this.upBuf = this.upCarry ? Buffer.concat([this.upCarry, chunk]) : chunk;
    this.upBufStart = this.upCarry ? this.upCarryStart : this.requestFramer.offset;
    this.requestFramer.push(chunk);
    if (this.passThrough) return;
    const rest = this.upBuf.subarray(this.upFramedEnd - this.upBufStart);
    this.upCarry = rest.length > 0 ? Buffer.from(rest) : null;
    this.upCarryStart = this.upFramedEnd;
    this.runRequests();
  }

  end(kind: EndKind, nowNs: number): void {
    this.upEnded = kind;
    if (!this.upWaiting && this.requests.length === 0) this.o.up.end(kind, nowNs);
  }

  private runRequests(): void {
    const out: Buffer[] = [];
    while (!this.upWaiting && this.requests.length > 0 && !this.passThrough) {
      const r = this.requests[0]!;
      if (r.info.seq < 0) {
        (r as { info: RequestInfo }).info = { ...r.info, seq: this.seq++, inMulti: this.requestModes.inMulti };
      }
      const decided = runStages<RequestAction>(this.stages, (s) => s.onRequest?.(r.info), isForward, (a) => {
        this.upWaiting = false;
        this.decide(r, a, out);
        this.flushUp(out);
        this.runRequests();
      });
      if (decided === undefined) {
        this.upWaiting = true;
        break;
      }
      this.decide(r, decided, out);
    }
    this.flushUp(out);
  }

  private decide(r: PendingRequest, a: RequestAction, out: Buffer[]): void {
    if (this.requests[0] !== r) return;
    this.requests.shift();
    this.upHeld -= r.wire.length;
    if (a.kind === 'forward') {
      const kind = this.requestModes.effectiveKind(r.kind);
      const argc = r.info.args.length + 1;
      this.addSlot(newSlot(SlotKind.Forwarded, r.info, kind, r.hello, this.requestModes.admit(kind, argc)));
      out.push(r.wire);
      this.outOffset += r.wire.length;
      this.outEnds.push(this.outOffset);
      this.clientEnds.push(r.clientEnd);
    } else if (a.kind === 'answer') {
      const slot = newSlot(SlotKind.Local, r.info, 0, 0, 0);
      slot.local = a.reply;
      this.addSlot(slot);
      const t = this.o.scheduler.schedule(this.o.conn.nowNs() + this.o.upDelayNs(), () => {
        this.timers.delete(t);
        slot.ready = true;
        this.flushDown();
      });
      this.timers.add(t);
    } else {
      this.addSlot(newSlot(SlotKind.Dropped, r.info, 0, 0, 0));
    }
  }

  private flushUp(out: Buffer[]): void {
    if (out.length === 0) return;
    const chunk = out.length === 1 ? out[0]! : Buffer.concat(out);
    out.length = 0;
    this.o.up.push(chunk, this.o.conn.nowNs());
    if (this.upEnded !== undefined && this.requests.length === 0 && !this.upWaiting) this.o.up.end(this.upEnded, this.o.conn.nowNs());
  }

  private forwardRaw(chunk: Buffer, nowNs: number): void {
    this.outOffset += chunk.length;
    this.outEnds.push(this.outOffset);
    this.clientEnds.push(this.requestFramer.offset);
    this.o.up.push(chunk, nowNs);
  }

  private addSlot(slot: Slot): void {
    this.slots.push(slot);
    this.matcher.add(slot);
  }

  // ---- down ----

  pushReply(chunk: Buffer, nowNs: number): void {
    if (this.passThrough) {
      this.o.down.push(chunk, nowNs);
      return;
    }
    this.downBuf = this.downCarry ? Buffer.concat([this.downCarry, chunk]) : chunk;
    this.downBufStart = this.downCarry ? this.downFramedEnd : this.replyFramer.offset;
    this.replyFramer.push(chunk);
    if (this.passThrough) return;
    const rest = this.downBuf.subarray(this.downFramedEnd - this.downBufStart);
    this.downCarry = rest.length > 0 ? Buffer.from(rest) : null;
    this.runReplies();
  }

  endReply(kind: EndKind, nowNs: number): void {
    this.downEnded = kind;
    this.flushDown();
    // Whatever is still held (a drop, a hold) can never be answered now.
    this.o.down.end(kind, nowNs);
  }

  private replyFrame(f: ReplyFrame): void {
    const frame = Buffer.from(this.downBuf.subarray(f.start - this.downBufStart, f.end - this.downBufStart));
    const wire = this.downBuf.subarray(this.downFramedEnd - this.downBufStart, f.end - this.downBufStart);
    this.downFramedEnd = f.end;
    this.downHeld += wire.length;
    this.incoming.push({ bytes: Buffer.from(wire), frame, slot: this.matcher.match(f) });
  }

  private runReplies(): void {
    while (!this.downWaiting && this.incoming.length > 0 && !this.passThrough) {
      const item = this.incoming[0]!;
      const info = { request: item.slot?.info, bytes: item.frame, isPush: item.slot === undefined };
      const final = (a: ReplyAction): ReplyAction =>
        a.kind === 'drop' ? a : info.bytes !== item.frame ? { kind: 'replace', reply: info.bytes } : { kind: 'pass' };
      const decided = runStages<ReplyAction>(
        this.stages,
        (s) => s.onReply?.(info),
        (a) => a.kind !== 'drop',
        (a) => {
          this.downWaiting = false;
          this.applyReply(item, final(a));
          this.runReplies();
        },
        (a) => {
          if (a.kind === 'replace') info.bytes = a.reply;
        },
      );
      if (decided === undefined) {
        this.downWaiting = true;
        break;
      }
      this.applyReply(item, final(decided));
    }
    this.flushDown();
  }

  private applyReply(item: RedisItem, a: ReplyAction): void {
    if (this.incoming[0] !== item) return;
    this.incoming.shift();
    this.downHeld -= item.bytes!.length;
    if (a.kind === 'drop') item.bytes = null;
    else if (a.kind === 'replace') item.bytes = a.reply;
    if (item.bytes) this.downHeld += item.bytes.length;
    this.ready.push(item);
    this.flushDown();
  }

  /** Hands on, in request order, every reply whose turn has come. */
  private flushDown(): void {
    if (this.destroyed) return;
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
          this.downHeld -= next.bytes.length;
          this.o.down.push(next.bytes, now);
        }
        continue;
      }
      if (head.kind === SlotKind.Local) {
        if (!head.ready) return;
        this.slots.shift();
        this.o.down.push(head.local!, now);
        continue;
      }
      if (head.kind === SlotKind.Dropped) return;
      if (head.complete && head.emitted === head.matched) {
        this.slots.shift();
        continue;
      }
      return;
    }
  }

  private fallBack(): void {
    if (this.passThrough) return;
    this.passThrough = true;
    this.o.log(`conn ${this.o.conn.id}: frame stages off (stream not valid RESP), bytes pass unchanged`);
    const now = this.o.conn.nowNs();
    // Up: everything not yet decided, then the rest of the stream, unchanged.
    const up: Buffer[] = this.requests.map((r) => r.wire);
    const rest = this.upBuf.subarray(Math.max(0, this.upFramedEnd - this.upBufStart));
    up.push(rest);
    this.requests.length = 0;
    this.upHeld = 0;
    const chunk = Buffer.concat(up);
    if (chunk.length > 0) this.forwardRaw(chunk, now);
    // Down: what is held, in order, then the rest unchanged.
    for (const s of this.slots) if (s.kind === SlotKind.Local) s.ready = true;
    const down: Buffer[] = [];
    for (const s of this.slots) if (s.local) down.push(s.local);
    for (const r of this.ready) if (r.bytes) down.push(r.bytes);
    for (const r of this.incoming) if (r.bytes) down.push(r.bytes);
    down.push(this.downBuf.subarray(Math.max(0, this.downFramedEnd - this.downBufStart)));
    this.slots.length = this.ready.length = this.incoming.length = 0;
    this.downHeld = 0;
    const d = Buffer.concat(down);
    if (d.length > 0) this.o.down.push(d, now);
    if (this.upEnded) this.o.up.end(this.upEnded, now);
    void this.downEnded;
  }

  destroy(): void {
    this.destroyed = true;
    for (const t of this.timers) this.o.scheduler.cancel(t);
    this.timers.clear();
    for (const s of this.stages) s.stage.destroy?.();
  }
}

const isForward = (a: RequestAction): boolean => a.kind === 'forward';
const isPass = (a: ReplyAction): boolean => a.kind === 'pass';
