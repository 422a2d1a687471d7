/**
 * What puts the scheduler to sleep until shortly before its next deadline. The scheduler polls
 * (and at the very end spins) only for what is left after the wake, so how early to ask for a
 * wake is learned from how late the wakes come: `WakeLearner`.
 */
import { openAlarm, type Alarm } from './native-alarm.js';
import { timerThread, type TimerThread } from './timer-thread.js';

export interface Waker {
  /** Call `onWake` at about `atNs` (the scheduler's clock), replacing any wake set before. */
  set(atNs: number, nowNs: number): void;
  clear(): void;
  /** Gives up shared resources (the timer thread's slot). */
  close(): void;
  /** The shortest sleep worth asking for: closer deadlines are polled. */
  readonly minSleepNs: number;
  /** Wakes at a fractional millisecond (worth sleeping to a deadline itself when over the poll budget). */
  readonly precise: boolean;
  /**
   * The share of a wake's lateness that is the event loop's own wake-up (a sleeping main thread
   * made to run): all of it with the timerfd, half with the timer thread (its wake, then the
   * loop's), none with setTimeout (whose lateness is mostly its millisecond rounding).
   */
  readonly loopShare: number;
}

/**
 * `timerfd`: the native alarm, on the main thread's own loop (Linux, when built at install);
 * `thread`: the process's timer thread; `timeout`: Node's setTimeout.
 */
export type WakeKind = 'timerfd' | 'thread' | 'timeout';

/**
 * Node's setTimeout: whole milliseconds, rounded down so that it never wakes after `atNs` for the
 * rounding alone. Works with any clock (a fake one in tests).
 */
export class TimeoutWaker implements Waker {
  readonly minSleepNs = 1_000_000;
  readonly precise = false;
  readonly loopShare = 0;
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
  readonly precise = true;
  readonly loopShare = 0.5;
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
 * The timerfd alarm (native-alarm.ts): arming it is a syscall on the main thread that wakes no
 * other thread, and its expiry wakes the event loop directly, so a wake costs one wake-up where
 * the timer thread costs three (its own twice, then the loop's) and a message. Real clock only.
 */
export class TimerfdWaker implements Waker {
  /**
   * A closer deadline is polled: a wake costs the loop tens of microseconds of CPU and comes
   * about as late, so a shorter sleep saves nothing (docs/precision.md).
   */
  readonly minSleepNs = 100_000;
  readonly precise = true;
  readonly loopShare = 1;
  private armedAtNs = Infinity;
  private closed = false;

  private constructor(private readonly onWake: () => void) {}

  /** A waker on a new alarm, or undefined where the addon was not built. */
  static open(onWake: () => void): TimerfdWaker | undefined {
    const waker = new TimerfdWaker(onWake);
    const alarm = openAlarm(() => waker.woke());
    if (alarm === undefined) return undefined;
    waker.alarm = alarm;
    return waker;
  }
  private alarm: Alarm | undefined;

  set(atNs: number): void {
    // Never (a timer armed for an endless wait): no wake, as the timer thread reads Infinity.
    if (!Number.isFinite(atNs)) return this.clear();
    if (this.armedAtNs === atNs || this.closed) return;
    this.armedAtNs = atNs;
    this.alarm?.set(atNs);
  }

  clear(): void {
    if (this.armedAtNs === Infinity || this.closed) return;
    this.armedAtNs = Infinity;
    this.alarm?.clear();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.alarm?.close();
  }

  private woke(): void {
    this.armedAtNs = Infinity;
    this.onWake();
  }
}

/** What a waker is (the fallback taken when the one asked for was not to be had shows here). */
export function wakeKindOf(waker: Waker | undefined): WakeKind {
  return waker instanceof TimerfdWaker ? 'timerfd' : waker instanceof ThreadWaker ? 'thread' : 'timeout';
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

/**
 * Sleeps shorter than this are learned apart: a thread that slept a millisecond or more wakes
 * later than one that slept a few hundred microseconds (the VM's CPU went idle), so one margin
 * for both either polls through the short sleep's lateness or is late after the long one.
 */
const SHORT_SLEEP_NS = 1_000_000;

/** The learned wake margin before any wake was seen, by waker: about one wake's lateness on a quiet machine. */
const INITIAL_EARLY_NS: Record<WakeKind, number> = { timerfd: 100_000, thread: 200_000, timeout: 1_000_000 };

/**
 * Bounds of the learned wake margin. At least the thread's hop (tens of microseconds at best); at
 * most 0.5 ms: on a loaded machine wakes come late because the process waits for a CPU, which an
 * earlier wake does not avoid, and polling longer only makes it a worse sleeper for the OS
 * scheduler (it is then run later still).
 */
const MIN_EARLY_NS = 30_000;
export const MAX_EARLY_NS = 500_000;

/** How late a waker's wakes come after long sleeps and after short ones, each learned on its own. */
export class SleepMargins {
  readonly long: WakeLearner;
  readonly short: WakeLearner;

  constructor(kind: WakeKind) {
    this.long = new WakeLearner(INITIAL_EARLY_NS[kind], MIN_EARLY_NS, MAX_EARLY_NS);
    this.short = new WakeLearner(INITIAL_EARLY_NS[kind] / 2, MIN_EARLY_NS, MAX_EARLY_NS);
  }

  /** The learner for a sleep of `sleepNs`. */
  for(sleepNs: number): WakeLearner {
    return sleepNs < SHORT_SLEEP_NS ? this.short : this.long;
  }
}

/**
 * A waker of `kind`, each falling back on the next: no addon (another platform, not built), no
 * thread slot left (`onThreadLost`: the thread died later).
 */
export function openWaker(kind: WakeKind, onWake: () => void, onThreadLost: () => void): Waker {
  return (
    (kind === 'timerfd' ? TimerfdWaker.open(onWake) : undefined) ??
    (kind !== 'timeout' ? ThreadWaker.open(onWake, onThreadLost) : undefined) ??
    new TimeoutWaker(onWake)
  );
}
