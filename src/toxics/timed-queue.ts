import type { ByteSink, EndKind, Scheduler, Timer } from '../stage/types.js';

/**
 * Chunks (and the end marker) held until a due time, handed to the next sink in order with one
 * timer. The byte toxics that hold data (latency, bandwidth, slicer, slow_close) compute due times
 * and leave the holding, draining and cancelling to this. Due times are kept non-decreasing by the
 * caller; this only guarantees order.
 */
export class TimedQueue {
  private readonly items: (Buffer | EndKind)[] = [];
  private readonly due: number[] = [];
  /** When each item was pushed (its arrival, for `takeAll`). */
  private readonly pushed: number[] = [];
  private head = 0;
  private timer: Timer | undefined;
  private pending = 0;
  private done = false;
  /** With `gapNs`: the earliest the next item may leave. */
  private freeNs = -Infinity;

  /**
   * `gapNs`: the least time between two items handed on, read at each one (slicer's `delay`): a
   * timer that fires late hands on one item, not all that are due, so items never leave together.
   */
  constructor(
    private readonly scheduler: Scheduler,
    private readonly next: ByteSink,
    private readonly gapNs?: () => number,
  ) {}

  get pendingBytes(): number {
    return this.pending;
  }

  /** Items held (chunks, and the end marker if queued). */
  get heldItems(): number {
    return this.items.length - this.head;
  }

  get empty(): boolean {
    return this.head === this.items.length;
  }

  /** Due time of the last thing queued (-Infinity when empty). */
  get lastDueNs(): number {
    return this.empty ? -Infinity : this.due[this.due.length - 1]!;
  }

  /** `pushedNs`: when the item first arrived, if earlier than now (an item `takeAll` gave back). */
  push(item: Buffer | EndKind, dueNs: number, nowNs: number, pushedNs = nowNs): void {
    if (this.done) return;
    if (this.empty && dueNs <= nowNs && this.freeNs <= nowNs) {
      this.deliver(item, nowNs);
      return;
    }
    this.items.push(item);
    this.due.push(dueNs);
    this.pushed.push(pushedNs);
    if (typeof item !== 'string') this.pending += item.length;
    if (!this.timer) this.timer = this.scheduler.schedule(this.nextDueNs(), this.flush);
  }

  /** Hands on everything held, now, in order. */
  drain(nowNs: number): void {
    this.cancel();
    while (!this.empty && !this.done) this.deliver(this.take(), nowNs);
    this.compact();
  }

  /** Takes back everything held, in order, each with when it arrived: the stage times it again (an update). */
  takeAll(): { item: Buffer | EndKind; pushedNs: number }[] {
    this.cancel();
    const held = this.items.slice(this.head).map((item, i) => ({ item, pushedNs: this.pushed[this.head + i]! }));
    this.items.length = 0;
    this.due.length = 0;
    this.pushed.length = 0;
    this.head = 0;
    this.pending = 0;
    return held;
  }

  destroy(): void {
    this.cancel();
    this.done = true;
    this.items.length = 0;
    this.due.length = 0;
    this.pushed.length = 0;
    this.head = 0;
    this.pending = 0;
  }

  private readonly flush = (): void => {
    this.timer = undefined;
    const now = this.scheduler.clock.nowNs();
    while (!this.empty && !this.done && this.nextDueNs() <= now) this.deliver(this.take(), now);
    this.compact();
    if (!this.empty && !this.done) this.timer = this.scheduler.schedule(this.nextDueNs(), this.flush);
  };

  private nextDueNs(): number {
    return Math.max(this.due[this.head]!, this.freeNs);
  }

  private take(): Buffer | EndKind {
    const item = this.items[this.head]!;
    this.head++;
    if (typeof item !== 'string') this.pending -= item.length;
    return item;
  }

  private deliver(item: Buffer | EndKind, nowNs: number): void {
    if (this.gapNs) this.freeNs = nowNs + this.gapNs();
    if (typeof item === 'string') {
      this.done = true;
      this.next.end(item, nowNs);
    } else {
      this.next.push(item, nowNs);
    }
  }

  private cancel(): void {
    if (this.timer) this.scheduler.cancel(this.timer);
    this.timer = undefined;
  }

  private compact(): void {
    if (this.head > 0 && (this.empty || this.head > 1024)) {
      this.items.splice(0, this.head);
      this.due.splice(0, this.head);
      this.pushed.splice(0, this.head);
      this.head = 0;
    }
  }
}
