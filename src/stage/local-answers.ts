/**
 * Local answers waiting out the link's up delay: a request a stage answers pays the way to Redis
 * like a real one before its reply may start down (the reply sequencer then places it).
 */
import type { Slot } from './reply-slot.js';
import type { ConnectionContext, Scheduler, Timer } from './types.js';

export class LocalAnswers {
  private readonly timers = new Set<Timer>();

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
      return this.onReady();
    }
    const t = this.scheduler.schedule(dueNs, () => {
      this.timers.delete(t);
      slot.ready = true;
      this.onReady();
    });
    this.timers.add(t);
  }

  destroy(): void {
    for (const t of this.timers) this.scheduler.cancel(t);
    this.timers.clear();
  }
}
