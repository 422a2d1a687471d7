/**
 * What puts the scheduler to sleep until shortly before its next deadline. The scheduler polls
 * (and at the very end spins) only for what is left after the wake, so how early to ask for a
 * wake is learned from how late the wakes come: `WakeLearner`.
 */
import { timerThread, type TimerThread } from './timer-thread.js';

export interface Waker {
  /** Call `onWake` at about `atNs` (the scheduler's clock), replacing any wake set before. */
  set(atNs: number, nowNs: number): void;
  clear(): void;
  /** Gives up shared resources (the timer thread's slot). */
  close(): void;
  /** The shortest sleep worth asking for: closer deadlines are polled. */
  readonly minSleepNs: number;
}

export type WakeKind = 'thread' | 'timeout';

/**
 * Node's setTimeout: whole milliseconds, rounded down so that it never wakes after `atNs` for the
 * rounding alone. Works with any clock (a fake one in tests).
 */
export class TimeoutWaker implements Waker {
  readonly minSleepNs = 1_000_000;
  private timer: NodeJS.Timeout | undefined;
  private atNs = Infinity;

  constructor(private readonly onWake: () => void) {}

  set(atNs: number, nowNs: number): void {
    if (this.timer !== undefined && this.atNs === atNs) return;
    this.clear();
    this.atNs = atNs;
    this.timer = setTimeout(this.fire, Math.max(1, Math.floor((atNs - nowNs) / 1e6)));
  }

  clear(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.atNs = Infinity;
  }

  close(): void {
    this.clear();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.atNs = Infinity;
    this.onWake();
  };
}

/** The process's timer thread: wakes at a fractional millisecond. Real clock only. */
export class ThreadWaker implements Waker {
  /**
   * A wake through the thread is two wake-ups (the thread's, then the loop's): a shorter sleep
   * saves no CPU and costs precision, so a closer deadline is polled (unless over the poll budget).
   */
  readonly minSleepNs = 150_000;
  private armedAtNs = Infinity;

  private constructor(
    private readonly thread: TimerThread,
    private readonly slot: number,
    private readonly onWake: () => void,
  ) {}

  /** A waker on the timer thread, or undefined when it has no slot left or cannot start. */
  static open(onWake: () => void, onThreadLost: () => void): ThreadWaker | undefined {
    const thread = timerThread();
    if (thread === undefined) return undefined;
    let waker: ThreadWaker | undefined;
    const slot = thread.claim((s) => (s < 0 ? onThreadLost() : waker?.woke()));
    if (slot < 0) return undefined;
    waker = new ThreadWaker(thread, slot, onWake);
    return waker;
  }

  set(atNs: number): void {
    if (this.armedAtNs === atNs) return;
    this.armedAtNs = atNs;
    this.thread.set(this.slot, atNs / 1e6);
  }

  clear(): void {
    if (this.armedAtNs === Infinity) return;
    this.armedAtNs = Infinity;
    this.thread.set(this.slot, Infinity);
  }

  close(): void {
    this.thread.release(this.slot);
  }

  private woke(): void {
    // A wake for a time since replaced is harmless: the scheduler only looks at its heap.
    this.armedAtNs = Infinity;
    this.onWake();
  }
}

/**
 * How late wakes come, learned: a running mean and mean deviation (1/16 weights), so the margin
 * follows the machine's load within tens of wakes. Asking `mean + 4 deviations` early makes most
 * wakes land before the deadline, leaving a short poll.
 */
export class WakeLearner {
  private meanNs: number;
  private devNs: number;

  constructor(
    initialNs: number,
    private readonly minNs: number,
    private readonly maxNs: number,
  ) {
    this.meanNs = initialNs;
    this.devNs = initialNs / 4;
  }

  /** How much earlier than a deadline to ask for the wake. */
  get earlyNs(): number {
    return Math.min(this.maxNs, Math.max(this.minNs, this.meanNs + 4 * this.devNs));
  }

  /** How late wakes come on average. */
  get meanLateNs(): number {
    return this.meanNs;
  }

  /** A wake asked for `askedNs` came at `nowNs`. */
  observe(askedNs: number, nowNs: number): void {
    const lateNs = Math.min(this.maxNs, Math.max(0, nowNs - askedNs));
    const err = lateNs - this.meanNs;
    this.meanNs += err / 16;
    this.devNs += (Math.abs(err) - this.devNs) / 16;
  }
}
