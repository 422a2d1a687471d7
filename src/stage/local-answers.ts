/**
 * Local answers waiting out the link's up delay: a request a stage answers pays the way to Redis
 * like a real one before its reply may start down (the reply sequencer then places it).
 */
import type { Slot } from './reply-slot.js';
import type { ConnectionContext, Scheduler, Timer } from './types.js';

export class LocalAnswers {
  private readonly timers = new Set<Timer>();
  private deciding = false;
  private dueWhileDeciding = false;

  constructor(
    private readonly conn: ConnectionContext,
    private readonly scheduler: Scheduler,
    private readonly upDelayNs: () => number,
    /** A slot became ready: hand on what may leave now. */
    private readonly onReady: () => void,
  ) {}

  /** `slot` (a local answer) is ready once the up delay from now has passed. */
  hold(slot: Slot): void {
    const nowNs = this.conn.nowNs();
    const dueNs = nowNs + this.upDelayNs();
    if (dueNs <= nowNs) {
      slot.ready = true;
      return this.ready();
    }
    const t = this.scheduler.schedule(dueNs, () => {
      this.timers.delete(t);
      slot.ready = true;
      this.ready();
    });
    this.timers.add(t);
  }

  /**
   * Runs `decide` (a run of requests being decided); an answer due meanwhile goes after the run: the
   * tap learns each request's reply count as it is decided (FramedTap.decided), and a request behind
   * it, sent at the same time, must be outstanding before the answer reaches the client.
   */
  whileDeciding(decide: () => void): void {
    this.deciding = true;
    try {
      decide();
    } finally {
      this.deciding = false;
    }
    if (this.dueWhileDeciding) {
      this.dueWhileDeciding = false;
      this.onReady();
    }
  }

  private ready(): void {
    if (this.deciding) this.dueWhileDeciding = true;
    else this.onReady();
  }

  destroy(): void {
    for (const t of this.timers) this.scheduler.cancel(t);
    this.timers.clear();
  }
}
