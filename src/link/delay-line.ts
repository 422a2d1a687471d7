import type { EndKind, Scheduler, Timer } from '../stage/types.js';

export interface DelayLineOptions {
  scheduler: Scheduler;
  /** One-way delay for the next chunk, nanoseconds (jitter already applied). */
  sampleDelayNs: () => number;
  /** Rate limit in bits per second; 0 = unlimited. Read per chunk, so it can change live. */
  bandwidthBps: () => number;
  /** Due chunks, oldest first. `endOffset` = absolute stream offset one past the last byte. */
  deliver: (chunks: Buffer[], endOffset: number, nowNs: number) => void;
  /** The end-of-stream marker reached the far side (after all data before it). */
  onEnd: (kind: EndKind, nowNs: number) => void;
  /** How late each scheduled chunk left (now - due, ns): the delay line's own precision. */
  onLateness?: (lateNs: number) => void;
  /**
   * Nothing is sent before this time (a TCP handshake a real client would have waited for); the
   * one-way delay is added on top of it.
   */
  notBeforeNs?: number;
}

/**
 * One direction of a link. Each chunk is stamped on arrival and leaves at
 *   due = max(arrival + serialization + delay, due of the chunk before)
 * so jitter never reorders bytes, as on a TCP connection. Serialization follows the previous
 * chunk's (a rate-limited link sends one thing at a time). Knows nothing of RESP or sockets.
 */
export class DelayLine {
  private readonly chunks: (Buffer | EndKind)[] = [];
  private readonly dueNs: number[] = [];
  private head = 0;
  private lastDueNs = -Infinity;
  private txFreeNs = -Infinity;
  private offset = 0;
  private timer: Timer | undefined;
  private pending = 0;
  private ended = false;
  private destroyed = false;

  private readonly notBeforeNs: number;
  /** Stamped by the scheduler (DeliverySource), which counts the lines delivering at once. */
  activeWindow = -1;

  constructor(private readonly options: DelayLineOptions) {
    this.notBeforeNs = options.notBeforeNs ?? -Infinity;
  }

  /** Bytes accepted and not yet delivered. */
  get pendingBytes(): number {
    return this.pending;
  }

  /** Chunks (and end marker) waiting. */
  get queued(): number {
    return this.chunks.length - this.head;
  }

  push(chunk: Buffer, arrivalNs: number): void {
    if (this.ended || this.destroyed || chunk.length === 0) return;
    const due = this.dueFor(chunk.length, arrivalNs);
    this.pending += chunk.length;
    if (this.queued === 0 && due <= arrivalNs) {
      // Nothing ahead and due on arrival (no delay): deliver now, skipping the clock and a scheduler
      // hop on the zero-delay hot path.
      this.pending -= chunk.length;
      this.offset += chunk.length;
      this.options.deliver([chunk], this.offset, arrivalNs);
      this.options.scheduler.delivered?.(arrivalNs, this);
      return;
    }
    this.enqueue(chunk, due);
  }

  /** Ends the stream after everything queued (FIN) or resets it (after the data, like a RST in flight). */
  end(kind: EndKind, arrivalNs: number): void {
    if (this.ended || this.destroyed) return;
    this.ended = true;
    const due = this.dueFor(0, arrivalNs);
    if (this.queued === 0 && due <= this.options.scheduler.clock.nowNs()) {
      this.options.onEnd(kind, this.options.scheduler.clock.nowNs());
      return;
    }
    this.enqueue(kind, due);
  }

  /** Drops everything queued without delivering it. */
  destroy(): void {
    this.destroyed = true;
    if (this.timer) this.options.scheduler.cancel(this.timer);
    this.timer = undefined;
    this.chunks.length = 0;
    this.dueNs.length = 0;
    this.head = 0;
    this.pending = 0;
  }

  private dueFor(bytes: number, arrivalNs: number): number {
    // Before the handshake completes a real client could not have sent anything yet.
    let sentNs = Math.max(arrivalNs, this.notBeforeNs);
    const bps = this.options.bandwidthBps();
    if (bps > 0 && bytes > 0) {
      const start = Math.max(sentNs, this.txFreeNs);
      this.txFreeNs = start + (bytes * 8 * 1e9) / bps;
      sentNs = this.txFreeNs;
    }
    const due = Math.max(sentNs + this.options.sampleDelayNs(), this.lastDueNs);
    this.lastDueNs = due;
    return due;
  }

  private enqueue(item: Buffer | EndKind, due: number): void {
    this.chunks.push(item);
    this.dueNs.push(due);
    if (!this.timer) this.timer = this.options.scheduler.schedule(due, this.flush);
  }

  private readonly flush = (): void => {
    this.timer = undefined;
    if (this.destroyed) return;
    const now = this.options.scheduler.clock.nowNs();
    const out: Buffer[] = [];
    let endKind: EndKind | undefined;
    while (this.head < this.chunks.length && this.dueNs[this.head]! <= now) {
      const item = this.chunks[this.head]!;
      this.head++;
      if (typeof item === 'string') {
        endKind = item;
        break;
      }
      out.push(item);
      this.options.onLateness?.(now - this.dueNs[this.head - 1]!);
      this.pending -= item.length;
      this.offset += item.length;
    }
    this.compact();
    if (out.length > 0) this.options.deliver(out, this.offset, now);
    if (endKind) {
      this.options.onEnd(endKind, now);
      return;
    }
    if (this.destroyed) return;
    if (this.head < this.chunks.length) {
      this.timer = this.options.scheduler.schedule(this.dueNs[this.head]!, this.flush);
    }
  };

  private compact(): void {
    if (this.head === this.chunks.length) {
      this.chunks.length = 0;
      this.dueNs.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks.splice(0, this.head);
      this.dueNs.splice(0, this.head);
      this.head = 0;
    }
  }
}
