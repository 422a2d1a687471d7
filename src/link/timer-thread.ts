/**
 * A sub-millisecond alarm clock for the main thread. Node's own timers have whole-millisecond
 * granularity and fire late by a varying amount, so a precise deadline used to mean polling the
 * clock for the last two milliseconds before every delivery: a core's worth of CPU and an
 * Immediate (garbage) per turn. A worker thread can instead sleep in `Atomics.wait` with a
 * fractional-millisecond timeout (a futex: the kernel's high-resolution timers) and wake the main
 * loop with a message when the deadline comes. One thread serves every scheduler in the process:
 * each gets a slot holding its next wake time.
 */
import { Worker } from 'node:worker_threads';

/** Schedulers that can hold a slot at once; a further one falls back to Node's timers. */
export const TIMER_THREAD_SLOTS = 32;

/**
 * Shared memory, laid out as: Int32 [0] generation (bumped on every change, the thread waits on
 * it), Int32 [1 .. SLOTS] each slot's sequence number, then Float64 per slot the wake time in the
 * process's monotonic clock in milliseconds (clock.ts `monotonicNs` / 1e6; Infinity: none).
 */
interface Shared {
  readonly control: Int32Array;
  readonly wakeMs: Float64Array;
}

function layout(sab: SharedArrayBuffer, slots: number): Shared {
  const wakeOffset = Math.ceil(((1 + slots) * 4) / 8) * 8;
  return { control: new Int32Array(sab, 0, 1 + slots), wakeMs: new Float64Array(sab, wakeOffset, slots) };
}

/**
 * The thread's whole program. It is sent as source text (`toString()`), so it must not use
 * anything from this module's scope: all it needs comes in as arguments.
 */
function threadMain(
  port: { postMessage(slot: number): void },
  control: Int32Array,
  wakeMs: Float64Array,
  /** The clock of `monotonicNs` (clock.ts) in ms: every thread of a process reads the same one. */
  nowMs: () => number,
): void {
  const slots = wakeMs.length;
  const firedSeq = new Int32Array(slots).fill(-1);
  for (;;) {
    const generation = Atomics.load(control, 0);
    let soonest = Infinity;
    let soonestSlot = -1;
    for (let i = 0; i < slots; i++) {
      const seq = Atomics.load(control, 1 + i);
      if (seq === firedSeq[i]) continue;
      const at = wakeMs[i]!;
      if (at < soonest) {
        soonest = at;
        soonestSlot = i;
      }
    }
    if (soonestSlot < 0) {
      Atomics.wait(control, 0, generation);
      continue;
    }
    const leftMs = soonest - nowMs();
    if (leftMs > 0 && Atomics.wait(control, 0, generation, leftMs) !== 'timed-out') continue;
    firedSeq[soonestSlot] = Atomics.load(control, 1 + soonestSlot);
    port.postMessage(soonestSlot);
  }
}

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { sab, slots, wakeOffset } = workerData;
(${threadMain.toString()})(
  parentPort,
  new Int32Array(sab, 0, 1 + slots),
  new Float64Array(sab, wakeOffset, slots),
  () => { const t = process.hrtime(); return t[0] * 1e3 + t[1] / 1e6; },
);`;

/** The process's timer thread, started on first use. It keeps the process alive only while a wake is armed. */
class TimerThread {
  private readonly shared: Shared;
  private readonly owners: (((slot: number) => void) | undefined)[] = new Array(TIMER_THREAD_SLOTS);
  private readonly worker: Worker;

  constructor() {
    const sab = new SharedArrayBuffer(Math.ceil(((1 + TIMER_THREAD_SLOTS) * 4) / 8) * 8 + TIMER_THREAD_SLOTS * 8);
    this.shared = layout(sab, TIMER_THREAD_SLOTS);
    this.shared.wakeMs.fill(Infinity);
    this.worker = new Worker(SOURCE, {
      eval: true,
      workerData: {
        sab,
        slots: TIMER_THREAD_SLOTS,
        wakeOffset: this.shared.wakeMs.byteOffset,
      },
      // The program above needs a few kilobytes; keep the thread's heap small.
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 },
    });
    this.worker.on('message', (slot: number) => {
      this.hold(slot, false);
      this.owners[slot]?.(slot);
    });
    // After the listener: adding a 'message' listener refs the worker's port again.
    this.worker.unref();
    this.worker.on('error', () => {
      // Tell every owner, so each falls back on Node's timers instead of waiting for a wake that
      // will never come.
      this.broken = true;
      for (let i = 0; i < TIMER_THREAD_SLOTS; i++) this.owners[i]?.(-1);
    });
  }
  broken = false;

  /**
   * Like a pending setTimeout, an armed wake keeps the process alive, and only then: the worker is
   * ref'd while any slot waits for a wake and unref'd when none does.
   */
  private hold(slot: number, armed: boolean): void {
    if (this.armed[slot] === armed) return;
    this.armed[slot] = armed;
    this.armedCount += armed ? 1 : -1;
    if (armed && this.armedCount === 1) this.worker.ref();
    else if (!armed && this.armedCount === 0) this.worker.unref();
  }
  private readonly armed: boolean[] = new Array<boolean>(TIMER_THREAD_SLOTS).fill(false);
  private armedCount = 0;

  /** A free slot whose wakes call `onWake(slot)` (-1: the thread died), or -1 when none is left. */
  claim(onWake: (slot: number) => void): number {
    if (this.broken) return -1;
    for (let i = 0; i < TIMER_THREAD_SLOTS; i++) {
      if (this.owners[i] === undefined) {
        this.owners[i] = onWake;
        return i;
      }
    }
    return -1;
  }

  release(slot: number): void {
    this.set(slot, Infinity);
    this.owners[slot] = undefined;
  }

  /** Wake the slot's owner at `atMs` (`monotonicNs` / 1e6); Infinity cancels. */
  set(slot: number, atMs: number): void {
    const { control, wakeMs } = this.shared;
    this.hold(slot, atMs !== Infinity);
    wakeMs[slot] = atMs;
    Atomics.add(control, 1 + slot, 1);
    Atomics.add(control, 0, 1);
    Atomics.notify(control, 0);
  }
}

let shared: TimerThread | undefined;

/** The process's timer thread (started now if it was not yet), or undefined where threads fail. */
export function timerThread(): TimerThread | undefined {
  if (shared === undefined || shared.broken) {
    try {
      shared = new TimerThread();
    } catch {
      return undefined;
    }
  }
  return shared;
}

export type { TimerThread };
