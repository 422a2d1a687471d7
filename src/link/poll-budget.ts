import type { Timer } from '../stage/types.js';

/** How often the share of time spent polling is taken. */
const SHARE_WINDOW_NS = 10_000_000;

/**
 * The scheduler's poll budget: whether it has lately polled more than its share while many
 * timers fire, in which case it should sleep to each deadline itself instead of polling.
 */
export class PollBudget {
  private window = 0;
  private timersInWindow = 0;
  private timersBefore = 0;
  private prevStartNs = 0;
  private prevPollNs = 0;
  private startNs = 0;
  private windowPollNs = 0;

  constructor(
    private readonly maxShare: number,
    /** More timers than this firing in a window count as many connections (one has two). */
    private readonly maxTimers: number,
  ) {}

  /** A timer fired: count it once per window. */
  fired(timer: Timer): void {
    if (timer.firedWindow === this.window) return;
    timer.firedWindow = this.window;
    this.timersInWindow++;
  }

  /**
   * Past the budget only while more timers than one connection's two fire in the window (the one
   * before or this one): many connections' deliveries are what the budget is for. One connection
   * with a short delay keeps all its precision, as it keeps its linger.
   */
  over(nowNs: number, pollNs: number): boolean {
    return this.share(nowNs, pollNs) > this.maxShare && !this.fewTimers();
  }

  /** At most one connection's timers (`maxTimers`) fired in this window or the one before. */
  fewTimers(): boolean {
    return Math.max(this.timersBefore, this.timersInWindow) <= this.maxTimers;
  }

  /**
   * The share of the recent past (10 to 20 ms: the window before this one and this one so far)
   * spent polling (`pollNs`: cumulative poll time). Running, so the budget holds within a window
   * instead of swinging between windows of all and none.
   */
  private share(nowNs: number, pollNs: number): number {
    if (nowNs - this.startNs >= SHARE_WINDOW_NS) {
      this.prevStartNs = this.startNs;
      this.prevPollNs = this.windowPollNs;
      this.startNs = nowNs;
      this.windowPollNs = pollNs;
      this.timersBefore = this.timersInWindow;
      this.timersInWindow = 0;
      this.window++;
    }
    const spanNs = nowNs - this.prevStartNs;
    return spanNs > 0 ? (pollNs - this.prevPollNs) / spanNs : 0;
  }
}
