/**
 * One direction's chain of byte stages on one connection, ending in a sink (the socket). Each
 * stage writes into its own `Relay`, whose target is the next stage or the end sink, so a stage
 * can be spliced in or out of a live chain by re-pointing one relay: bytes in flight keep their
 * order because a removed stage drains into the stage after it before the one before it is
 * re-pointed past it.
 *
 * The fast path is the chain's own: `push` goes to the head stage and each stage's relay to the
 * next, with no queue or copy between. With the link alone, a read is
 * `push -> LinkStage -> DelayLine.push -> Relay -> sink`, and a zero-delay chunk reaches the
 * socket before `push` returns, synchronously in the read callback. No caller picks a path.
 */
import type { ByteSink, ByteStage, ByteStageFactory, ConnectionContext, EndKind } from './types.js';

/** A sink that can take a batch of chunks in one go (the socket: one corked write). */
export interface BatchSink extends ByteSink {
  pushMany?(chunks: Buffer[], nowNs: number): void;
}

/** A ByteSink whose target can be changed (what a stage's `next` really is). */
class Relay implements BatchSink {
  constructor(public target: BatchSink) {}
  push(chunk: Buffer, nowNs: number): void {
    this.target.push(chunk, nowNs);
  }
  pushMany(chunks: Buffer[], nowNs: number): void {
    const t = this.target;
    if (t.pushMany !== undefined) return t.pushMany(chunks, nowNs);
    for (let i = 0; i < chunks.length; i++) t.push(chunks[i]!, nowNs);
  }
  end(kind: EndKind, nowNs: number): void {
    this.target.end(kind, nowNs);
  }
}

interface Slot {
  readonly name: string;
  readonly stage: ByteStage;
  readonly out: Relay;
}

export class ByteChain {
  private readonly slots: Slot[] = [];
  /** Where the chain's input goes: the first stage, or the end sink when there is none. */
  private head: ByteSink;

  constructor(
    private readonly conn: ConnectionContext,
    private readonly sink: BatchSink,
  ) {
    this.head = sink;
  }

  push(chunk: Buffer, nowNs: number): void {
    this.head.push(chunk, nowNs);
  }

  end(kind: EndKind, nowNs: number): void {
    this.head.end(kind, nowNs);
  }

  /** Bytes pending in all stages. */
  get pendingBytes(): number {
    const s = this.slots;
    if (s.length === 1) return s[0]!.stage.pendingBytes;
    let n = 0;
    for (let i = 0; i < s.length; i++) n += s[i]!.stage.pendingBytes;
    return n;
  }

  get names(): string[] {
    return this.slots.map((s) => s.name);
  }

  /** Adds a stage at `index` (clamped; default last). */
  add(factory: Pick<ByteStageFactory, 'name' | 'create'>, index = this.slots.length): void {
    const at = Math.max(0, Math.min(index, this.slots.length));
    const after = at < this.slots.length ? this.slots[at]!.stage : this.sink;
    const out = new Relay(after);
    const stage = factory.create(this.conn, out);
    this.slots.splice(at, 0, { name: factory.name, stage, out });
    if (at === 0) this.head = stage;
    else this.slots[at - 1]!.out.target = stage;
  }

  /** Drains a stage into the one after it and takes it out. False if no stage has that name. */
  remove(name: string, nowNs: number): boolean {
    const at = this.slots.findIndex((s) => s.name === name);
    if (at < 0) return false;
    const slot = this.slots[at]!;
    slot.stage.drain(nowNs);
    this.slots.splice(at, 1);
    if (at === 0) this.head = slot.out.target;
    else this.slots[at - 1]!.out.target = slot.out.target;
    slot.stage.destroy();
    return true;
  }

  destroy(): void {
    for (const s of this.slots) s.stage.destroy();
  }
}
