import { z } from 'zod';
import type { Clock } from '../clock.js';
import { keyPath, NANOSECONDS, parseWith, wholeNumber, withMethods } from '../validation/schema.js';
import type { WakeKind } from './waker.js';

export interface PreciseSchedulerOptions {
  clock?: Clock;
  /**
   * How the scheduler sleeps until shortly before a deadline: `timerfd`, the native alarm on the
   * main thread's own loop (Linux, built at install); `thread`, the process's timer thread
   * (fractional milliseconds, on a worker); or `timeout`, Node's setTimeout (whole milliseconds,
   * often late). Each falls back on the next where it cannot be had.
   * @default 'timerfd' with the real clock, 'timeout' with any other
   */
  wake?: WakeKind;
  /**
   * Poll on the addon's turn hook (native/timerfd/turns.c): a call once per event-loop turn that
   * makes no garbage, where a setImmediate per turn makes an Immediate and its async context, and
   * at hundreds of thousands of poll turns a second that was a scavenge every few tens of
   * milliseconds (docs/precision.md, "Poll turns without garbage"). @default true with the real
   * clock where the addon is built; setImmediate otherwise
   */
  turnHook?: boolean;
  /**
   * A fixed margin: poll the clock with setImmediate for this long before each deadline instead of
   * the margin learned from how late wakes come. @default learned
   */
  spinWindowNs?: number;
  /**
   * Once a deadline is this close, wait for it in a busy loop inside the current turn instead of
   * another turn of the event loop (which costs an Immediate and a poll). @default 20 us (real
   * clock), 0 (any other: a fake clock never moves by itself)
   */
  spinNs?: number;
  /**
   * The same, while the scheduler is under its poll budget (few deliveries: one connection's):
   * a busy loop through the whole wake margin makes no garbage, where polling makes an Immediate
   * per turn, and costs the same CPU. Reads that come meanwhile wait for it; with few deliveries
   * few do, and the poll budget shortens it to `spinNs` once many deliver. @default the largest
   * wake margin, 500 us (real clock), 0 (any other)
   */
  quietSpinNs?: number;
  /**
   * A poll turn fires at most this many due timers; the rest go in the next turn, after that
   * turn's reads, unless already 0.5 ms late. Fifty connections' deliveries due together are fifty socket writes: fired in
   * one run, the requests they answer wait for all of them, and Redis idles meanwhile
   * (docs/precision.md, "Eight deliveries a turn"). @default 8
   */
  maxFiresPerTurn?: number;
  /**
   * Keep polling this long after a zero-delay delivery, so the reply or next request that usually
   * follows within tens of microseconds does not pay a sleeping process's wake-up. Costs CPU only
   * while traffic flows. @default 1 ms
   */
  lingerNs?: number;
  /**
   * Zero-delay deliveries linger only while at most this many sources (delay lines; a connection
   * has two) delivered in the current or the previous linger window. With more, the traffic
   * itself keeps the process awake and polling only takes CPU from Redis and the clients.
   * @default 2 (one connection)
   */
  maxLingerSources?: number;
  /**
   * The most of its time the scheduler polls for precision: past this share (of the last 10-20 ms)
   * it sleeps on its waker until each deadline itself, which costs a wake (tens of microseconds
   * late) instead of a core. Dense deliveries (many connections) reach it; one connection's do
   * not. A twentieth: as precise as a tenth at 10 and 50 connections, for about four fifths of
   * the CPU (docs/precision.md, "A twentieth for the poll budget"). @default 0.05
   */
  maxPollShare?: number;
  /**
   * Zero-delay deliveries linger only once no timed delivery has left for this long. With a delay
   * on the link, what follows a zero-delay delivery (Redis's reply to a request sent with no up
   * delay) is itself delayed; lingering for it only polls through Redis's wake-up. @default 100 ms
   */
  lingerUntimedNs?: number;
  /**
   * Keep polling up to this long after a timed delivery, until the next read, while few timers fire
   * (one connection) and the timed delivery before was followed within it: the client's next
   * request then finds the process awake instead of paying a wake-up (timed-linger.ts). 0 = never.
   * Short, because the client that the delivery woke may have to wait for it to end: on a VM whose
   * vCPUs share a host CPU, a polling vCPU holds the other one back (docs/precision.md, "How long
   * to linger").
   * @default 100 us (real clock), 0 (any other: a fake clock never moves by itself)
   */
  timedLingerNs?: number;
}

/** The longest `maxFiresPerTurn` holds a due delivery back. */
export const MAX_HOLD_NS = 500_000;

const nanoseconds = NANOSECONDS.optional();
const SHARE = 'a share of the time from 0 to 1';

const SHAPE = {
  clock: withMethods<Clock>(['nowNs'], 'a Clock (an object with nowNs())').optional(),
  wake: z.enum(['timerfd', 'thread', 'timeout'] satisfies WakeKind[], { error: 'timerfd, thread or timeout' }).optional(),
  turnHook: z.boolean({ error: 'true or false' }).optional(),
  spinWindowNs: nanoseconds,
  spinNs: nanoseconds,
  quietSpinNs: nanoseconds,
  maxFiresPerTurn: wholeNumber(1).optional(),
  lingerNs: nanoseconds,
  maxLingerSources: wholeNumber(0).optional(),
  maxPollShare: z.number({ error: SHARE }).min(0, { error: SHARE }).max(1, { error: SHARE }).optional(),
  lingerUntimedNs: nanoseconds,
  timedLingerNs: nanoseconds,
} satisfies Record<keyof PreciseSchedulerOptions, z.ZodType>;

const SCHEDULER_OPTIONS = z.strictObject(SHAPE, {
  error: (issue) =>
    issue.code === 'unrecognized_keys'
      ? `a key of PreciseScheduler's options: ${Object.keys(SHAPE).join(', ')}`
      : "an object of PreciseScheduler's options",
});

/**
 * `options` when each key is what PreciseScheduler takes, else a ConfigError naming it
 * (`PreciseScheduler.spinNs`): the class is exported, and a negative or NaN window, or a key it
 * does not take (`spinUs`), made a scheduler without a word that spun, slept or lingered wrong.
 */
export function checkSchedulerOptions(options: PreciseSchedulerOptions): PreciseSchedulerOptions {
  parseWith(SCHEDULER_OPTIONS, options, keyPath('PreciseScheduler'));
  return options;
}
