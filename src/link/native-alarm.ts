/**
 * The timerfd alarm (native/timerfd, built at install on Linux by scripts/build-native.mjs): a
 * deadline the main thread arms with one syscall that wakes nobody, and that wakes the main
 * thread's own event loop when it comes. Optional: where it was not built, `openAlarm` answers
 * undefined and the scheduler sleeps on the timer thread instead. The same addon has the turn
 * hook, a call once per loop turn that makes no garbage (`openTurnHook`), where the scheduler
 * would otherwise poll with setImmediate, and the accept of every connection a listening socket
 * holds at once (`acceptPendingCall`, for src/proxy/pending-accepts.ts).
 */
import { createRequire } from 'node:module';

/** The addon's functions (native/timerfd/timerfd.c, and the turn hook's in turns.c). */
interface Binding {
  create(onWake: () => void): object;
  set(alarm: object, atNs: number): void;
  clear(alarm: object): void;
  close(alarm: object): void;
  createTurns(onTurn: () => void): object;
  startTurns(hook: object): void;
  stopTurns(hook: object): void;
  closeTurns(hook: object): void;
  /** Missing from an addon built before it existed. */
  acceptPending?(fd: number, out: Int32Array, max: number): number;
}

/** One alarm on CLOCK_MONOTONIC, the clock of `monotonicNs` (clock.ts). */
export interface Alarm {
  /** Wake at `atNs`, replacing any earlier time; a time past wakes at once. Keeps the process alive while armed. */
  set(atNs: number): void;
  clear(): void;
  /** Frees the alarm; it must not be used after. */
  close(): void;
}

/** Where the build puts it, from src/link/ and dist/link/ alike. */
const ADDON_PATH = '../../native/timerfd/build/Release/timerfd.node';

let binding: Binding | null | undefined;

/** The addon, or null where it was not built (another platform, no compiler) or does not load. */
export function timerfdBinding(): Binding | null {
  if (binding === undefined) {
    try {
      binding = process.platform === 'linux' ? (createRequire(import.meta.url)(ADDON_PATH) as Binding) : null;
    } catch {
      binding = null;
    }
  }
  return binding;
}

/** A new alarm whose expiries call `onWake` on this thread, or undefined without the addon. */
export function openAlarm(onWake: () => void): Alarm | undefined {
  const b = timerfdBinding();
  if (b === null) return undefined;
  const handle = b.create(onWake);
  return {
    set: (atNs) => b.set(handle, atNs),
    clear: () => b.clear(handle),
    close: () => b.close(handle),
  };
}

/** A call once per event-loop turn, after the turn's I/O, while started (native/timerfd/turns.c). */
export interface TurnHook {
  /** From the next turn on; keeps the process alive while started. Starting a started hook does nothing. */
  start(): void;
  /** No more calls (from inside the call too). */
  stop(): void;
  /** Frees it; it must not be used after. */
  close(): void;
}

/** A new turn hook calling `onTurn`, or undefined without the addon. */
export function openTurnHook(onTurn: () => void): TurnHook | undefined {
  const b = timerfdBinding();
  // An addon built before the hook existed has the alarm only.
  if (b === null || typeof b.createTurns !== 'function') return undefined;
  const handle = b.createTurns(onTurn);
  // A crossing into the addon per poll turn is what the hook saves elsewhere: only on a change.
  let started = false;
  return {
    start: () => {
      if (started) return;
      started = true;
      b.startTurns(handle);
    },
    stop: () => {
      if (!started) return;
      started = false;
      b.stopTurns(handle);
    },
    close: () => {
      started = false;
      b.closeTurns(handle);
    },
  };
}

/**
 * accept4() of up to `max` connections waiting on listening socket `fd` into `out`, returning how
 * many (native/timerfd/accepts.c); undefined without the addon.
 */
export function acceptPendingCall(): ((fd: number, out: Int32Array, max: number) => number) | undefined {
  const b = timerfdBinding();
  return b?.acceptPending?.bind(b);
}
