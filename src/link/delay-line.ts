import { checkDelayLineOptions, type DelayLineOptions } from './delay-line-options.js';
import { newTimer } from './timer-heap.js';
import { LossyLine } from './lossy-line.js';
import type { EndKind, Timer } from '../stage/types.js';

export type { DelayLineOptions } from './delay-line-options.js';

/** What `one` holds between deliveries: one Buffer for every line, not one per line. */
const EMPTY = Buffer.alloc(0);
/** The ring before anything waited (length 0: the first enqueue grows it); a power of two after. */
const NO_CHUNKS: (Buffer | EndKind | undefined)[] = [];
const NO_TIMES = new Float64Array(0);
const FIRST_RING_SIZE = 8;

/**
 * One direction of a link. Each chunk is stamped on arrival and leaves at
 *   due = max(arrival + serialization + delay, due of the chunk before)
 * so jitter never reorders bytes, as on a TCP connection. Serialization follows the previous
 * chunk's (a rate-limited link sends one thing at a time). With loss, a chunk may leave in pieces:
 * the bytes from a lost segment on wait for its resend (loss-model.ts), and by the same max
 * everything behind them on this line does too. Loss and partitions are in lossy-line.ts (the base
 * class). Knows nothing of RESP or sockets.
 */
export class DelayLine extends LossyLine {
  /**
   * A ring of queued chunks (or the end marker) and their due times; it grows, never shrinks. Empty
   * (shared, never written) until the first chunk waits: a zero-delay line never queues, and three
   * arrays per line were part of every connection's set-up.
   */
  private chunks: (Buffer | EndKind | undefined)[] = NO_CHUNKS;
  // Typed, not inferred: TypeScript 5.7+ writes the inferred type out as Float64Array<ArrayBuffer>, which
  // 5.4 to 5.6 refuse in the declarations a consumer's compiler reads (no skipLibCheck).
  protected dueNs: Float64Array = NO_TIMES;
  /** Per queued chunk: its read's estimated wait (arrivalWaitNs), when that is asked for. */
  private waitNs = NO_TIMES;
  protected head = 0;
  protected count = 0;
  protected lastDueNs = -Infinity;
  private txFreeNs = -Infinity;
  private offset = 0;
  protected readonly timer: Timer;
  protected pending = 0;
  private ended = false;
  protected destroyed = false;
  /** The arrays handed to `deliver`, reused: one chunk (the usual case) and a due batch. */
  private readonly one: Buffer[] = [EMPTY];
  private readonly batch: Buffer[] = [];

  private readonly notBeforeNs: number;
  /** Stamped by the scheduler (DeliverySource), which counts the lines delivering at once. */
  activeWindow = -1;

  constructor(protected readonly options: DelayLineOptions) {
    super(checkDelayLineOptions(options).loss);
    this.notBeforeNs = options.notBeforeNs ?? -Infinity;
    this.timer = newTimer(this.flush);
  }

  /** Bytes accepted and not yet delivered. */
  get pendingBytes(): number {
    return this.pending;
  }

  /** Chunks (and end marker) waiting. */
  get queued(): number {
    return this.count;
  }

  push(chunk: Buffer, arrivalNs: number): void {
    if (this.ended || this.destroyed || chunk.length === 0) return;
    // The one test a line without loss pays per chunk.
    if (this.lossPath.rate > 0 && this.pushLossy(chunk, arrivalNs)) return;
    const due = this.dueFor(chunk.length, arrivalNs);
    const waitNs = this.options.arrivalWaitNs?.() ?? 0;
    if (this.count === 0 && due <= arrivalNs) {
      // Nothing ahead and due on arrival (no delay): deliver now, skipping the clock and a scheduler
      // hop on the zero-delay hot path.
      this.options.onAdded?.(waitNs);
      this.offset += chunk.length;
      this.handOn(chunk, arrivalNs);
      this.options.scheduler.delivered?.(arrivalNs, this);
      return;
    }
    this.pending += chunk.length;
    this.enqueue(chunk, due, waitNs);
  }

  /** Ends the stream after everything queued (FIN) or resets it (after the data, like a RST in flight). */
  end(kind: EndKind, arrivalNs: number): void {
    if (this.ended || this.destroyed) return;
    this.ended = true;
    const due = this.dueFor(0, arrivalNs);
    if (this.count === 0 && due <= this.options.scheduler.clock.nowNs()) {
      this.endOut(kind, this.options.scheduler.clock.nowNs());
      return;
    }
    this.enqueue(kind, due, 0);
  }

  /** Drops everything queued without delivering it. */
  destroy(): void {
    this.destroyed = true;
    this.options.scheduler.cancel(this.timer);
    this.chunks.fill(undefined);
    this.head = 0;
    this.count = 0;
    this.pending = 0;
  }

  private dueFor(bytes: number, arrivalNs: number): number {
    // A delay that falls (a wave, a schedule, a series) never lets a chunk pass the one before it.
    const due = Math.max(this.sentAndDelayedNs(bytes, arrivalNs), this.lastDueNs);
    this.lastDueNs = due;
    return due;
  }

  /**
   * When a chunk arrives at the far side with nothing ahead of it: send time (handshake,
   * serialization) plus the one-way delay, or its resend after a partition.
   */
  protected sentAndDelayedNs(bytes: number, arrivalNs: number): number {
    // Before the handshake completes a real client could not have sent anything yet.
    let sentNs = Math.max(arrivalNs, this.notBeforeNs);
    const bps = this.options.bandwidthBps();
    if (bps > 0 && bytes > 0) {
      const start = Math.max(sentNs, this.txFreeNs);
      this.txFreeNs = start + (bytes * 8 * 1e9) / bps;
      sentNs = this.txFreeNs;
    }
    const due = sentNs + this.options.sampleDelayNs();
    return this.flight === undefined ? due : this.throughPartition(this.flight, due, sentNs);
  }

  protected enqueue(item: Buffer | EndKind, due: number, waitNs: number): void {
    if (this.count === this.chunks.length) this.grow();
    const at = (this.head + this.count) & (this.chunks.length - 1);
    this.chunks[at] = item;
    this.dueNs[at] = due;
    this.waitNs[at] = waitNs;
    this.count++;
    if (this.count === 1) this.options.scheduler.arm(this.timer, due);
  }

  private grow(): void {
    const n = this.chunks.length;
    const size = n === 0 ? FIRST_RING_SIZE : n * 2;
    const chunks = new Array<Buffer | EndKind | undefined>(size);
    const dueNs = new Float64Array(size);
    const waitNs = new Float64Array(size);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) & (n - 1);
      chunks[i] = this.chunks[from];
      dueNs[i] = this.dueNs[from]!;
      waitNs[i] = this.waitNs[from]!;
    }
    this.chunks = chunks;
    this.dueNs = dueNs;
    this.waitNs = waitNs;
    this.head = 0;
  }

  /** Takes the oldest item off the ring. */
  private take(): Buffer | EndKind {
    const item = this.chunks[this.head]!;
    this.chunks[this.head] = undefined;
    this.head = (this.head + 1) & (this.chunks.length - 1);
    this.count--;
    return item;
  }

  /**
   * Where due chunks go: `deliver`. A method, so that the link stage (link-stage.ts), a delay line
   * itself, hands them to the next stage with no callback of its own per line.
   */
  protected handOut(chunks: Buffer[], endOffset: number, nowNs: number): void {
    this.options.deliver(chunks, endOffset, nowNs);
  }

  /** Where the end marker goes: `onEnd` (a method for the same reason as handOut). */
  protected endOut(kind: EndKind, nowNs: number): void {
    this.options.onEnd(kind, nowNs);
  }

  private handOn(chunk: Buffer, nowNs: number): void {
    const one = this.one;
    one[0] = chunk;
    this.handOut(one, this.offset, nowNs);
    one[0] = EMPTY;
  }

  private readonly flush = (): void => {
    if (this.destroyed) return;
    const now = this.options.scheduler.clock.nowNs();
    let first: Buffer | undefined;
    let endKind: EndKind | undefined;
    const batch = this.batch;
    while (this.count > 0 && this.dueNs[this.head]! <= now) {
      const lateNs = now - this.dueNs[this.head]!;
      const waitNs = this.waitNs[this.head]!;
      const item = this.take();
      if (typeof item === 'string') {
        endKind = item;
        break;
      }
      this.options.onLateness?.(lateNs);
      this.options.onAdded?.(lateNs + waitNs);
      this.pending -= item.length;
      this.offset += item.length;
      if (first === undefined) first = item;
      else {
        if (batch.length === 0) batch.push(first);
        batch.push(item);
      }
    }
    if (batch.length > 0) {
      this.handOut(batch, this.offset, now);
      batch.length = 0;
    } else if (first !== undefined) this.handOn(first, now);
    if (endKind) {
      this.endOut(endKind, now);
      return;
    }
    if (this.destroyed) return;
    if (this.count > 0) this.options.scheduler.arm(this.timer, this.dueNs[this.head]!);
  };
}

