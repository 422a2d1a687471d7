/** What a DelayLine is made with, and the check of it when one is made (never per chunk). */
import { z } from 'zod';
import { hook, keyPath, NANOSECONDS, parseWith, withMethods } from '../validation/schema.js';
import type { LossPath } from './loss-model.js';
import type { EndKind, Scheduler } from '../stage/types.js';

export interface DelayLineOptions {
  scheduler: Scheduler;
  /** One-way delay for the next chunk, nanoseconds (jitter already applied). */
  sampleDelayNs: () => number;
  /** Rate limit in bits per second; 0 = unlimited. Read per chunk, so it can change live. */
  bandwidthBps: () => number;
  /**
   * Due chunks, oldest first. `endOffset` = absolute stream offset one past the last byte. The array
   * is the line's own and is reused: read it before returning, do not keep it.
   */
  deliver: (chunks: Buffer[], endOffset: number, nowNs: number) => void;
  /** The end-of-stream marker reached the far side (after all data before it). */
  onEnd: (kind: EndKind, nowNs: number) => void;
  /** How late each scheduled chunk left (now - due, ns): the delay line's own precision. */
  onLateness?: (lateNs: number) => void;
  /**
   * How long the bytes of the chunk being pushed had waited for the read (an estimate, ns): read
   * at push, carried with the chunk, so that `onAdded` can count from when they came.
   */
  arrivalWaitNs?: () => number;
  /** Per delivered chunk (timed or not): write time minus (arrival - wait + configured delay), ns. */
  onAdded?: (addedNs: number) => void;
  /**
   * Nothing is sent before this time (a TCP handshake a real client would have waited for); the
   * one-way delay is added on top of it.
   */
  notBeforeNs?: number;
  /**
   * This direction's segment loss (loss-model.ts), shared by the link's connections and changed in
   * place; read per chunk, so it can change live. None: no loss.
   */
  loss?: LossPath;
}

const FRACTION = 'a probability from 0 to 1';
const fraction = z.number({ error: FRACTION }).min(0, { error: FRACTION }).max(1, { error: FRACTION });

/** The fields of a LossPath the line reads per lossy chunk (loss-model.ts makes them). */
const LOSS_PATH = z.looseObject(
  {
    rate: fraction,
    rateAfterLoss: fraction,
    resendRate: fraction,
    mssBytes: z.int({ error: 'a whole number of bytes, at least 1' }).min(1, { error: 'a whole number of bytes, at least 1' }),
    srttNs: NANOSECONDS,
    rttvarNs: NANOSECONDS,
    uniform: hook('a function returning a number from 0 to 1'),
    counters: z.looseObject({}, { error: 'an object of loss counters' }),
  },
  { error: 'a LossPath object (loss-model.ts)' },
);

const SHAPE = {
  scheduler: withMethods<Scheduler>(['schedule', 'arm', 'cancel'], 'a Scheduler (a PreciseScheduler or ManualScheduler)'),
  sampleDelayNs: hook<() => number>('a function returning the next one-way delay in nanoseconds'),
  bandwidthBps: hook<() => number>('a function returning bits per second, 0 for unlimited'),
  deliver: hook<DelayLineOptions['deliver']>('a function of (chunks, endOffset, nowNs)'),
  onEnd: hook<(kind: EndKind, nowNs: number) => void>('a function of (kind, nowNs)'),
  onLateness: hook<(lateNs: number) => void>('a function of the lateness in nanoseconds').optional(),
  arrivalWaitNs: hook<() => number>('a function returning nanoseconds').optional(),
  onAdded: hook<(addedNs: number) => void>('a function of the added nanoseconds').optional(),
  // -Infinity is the default (no handshake to wait for); +Infinity would hold every byte for ever.
  notBeforeNs: z
    .number({ error: "a time in nanoseconds on the scheduler's clock" })
    .or(z.literal(-Infinity))
    .optional(),
  loss: LOSS_PATH.optional(),
} satisfies Record<keyof DelayLineOptions, z.ZodType>;

const DELAY_LINE_OPTIONS = z.strictObject(SHAPE, {
  error: (issue) =>
    issue.code === 'unrecognized_keys' ? `a key of DelayLine's options: ${Object.keys(SHAPE).join(', ')}` : "an object of DelayLine's options",
});

/**
 * `options` when each key is what DelayLine takes, else a ConfigError naming it (`DelayLine.scheduler`):
 * the class is exported (docs/api.md), and a line made of a wrong object (`new DelayLine({})`) was made
 * without a word and threw a TypeError naming nothing at its first chunk. Once per line, never per chunk.
 */
export function checkDelayLineOptions(options: DelayLineOptions): DelayLineOptions {
  parseWith(DELAY_LINE_OPTIONS, options, keyPath('DelayLine'));
  return options;
}
