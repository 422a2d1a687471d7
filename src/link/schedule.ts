/**
 * `--link-schedule FILE`: link changes and partitions at set times from the proxy's start. The file
 * is a list of steps, or `{ "loop": true, "steps": [...] }`. Refused whole, with the field named,
 * when a step is out of order, names an unknown field, ramps past the next step, or starts a
 * partition before the one ahead of it has ended.
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { durationUsSchema } from '../units.js';
import { keyPath, parseWith } from '../validation/schema.js';
import { PARTITION_FIELDS } from './partition.js';
import { applyLinkUpdate, defaultLinkSettings, LINK_UPDATE } from './settings.js';
import type { LinkSettings, LinkUpdate } from './types.js';

/** PUT /link's keys but the partition's (a step has its own); an unknown key's error lists these, not those. */
const LINK_SETTINGS = LINK_UPDATE.omit({ partition: true, then: true }).shape;
const LINK_KEYS = z.strictObject(LINK_SETTINGS, {
  error: (issue) => (issue.code === 'unrecognized_keys' ? `a link key: ${Object.keys(LINK_SETTINGS).join(', ')} (a partition goes in the step)` : 'an object of link settings'),
});

const STEP = z
  .strictObject(
    {
      at: durationUsSchema(false).describe('When the step applies, from the proxy start ("30s").'),
      link: LINK_KEYS.describe('Link settings from then on, as PUT /link takes them.').optional(),
      ramp: durationUsSchema(true).describe("Move the delays to the step's over this long, linearly, instead of at once.").optional(),
      ...PARTITION_FIELDS,
    },
    { error: 'a step { at, link?, ramp?, partition?, then? }' },
  )
  .refine((s) => s.link !== undefined || s.partition !== undefined, { message: 'a step with link or partition (or both)' })
  .refine((s) => s.ramp === undefined || s.link !== undefined, { message: 'ramp only with link', path: ['ramp'] })
  .refine((s) => s.then === undefined || s.partition !== undefined, { message: 'then only with partition', path: ['then'] });

const STEPS = z.array(STEP, { error: 'a list of steps' }).min(1, { error: 'at least one step' });

const LOOP = z.strictObject(
  {
    loop: z.boolean({ error: 'true or false' }),
    period: durationUsSchema(true).describe('When the loop starts over. Default: the last step holds as long as the gap before it.').optional(),
    steps: STEPS,
  },
  { error: 'a list of steps, or { "loop": true, "steps": [...] }' },
).refine((l) => l.loop || l.period === undefined, { message: 'period only with "loop": true (a schedule that runs once has none)', path: ['period'] });

/** What a schedule may be, for docs/proxy-options.schema.json (an editor's check); parseLinkSchedule reads it. */
export const LINK_SCHEDULE = z.union([STEPS, LOOP]);

export interface ScheduleStep {
  atUs: number;
  link?: LinkUpdate & { preset?: string };
  rampUs?: number;
  partition?: { durationUs: number; then: 'heal' | 'reset' };
}

export interface LinkSchedule {
  steps: ScheduleStep[];
  /** With loop: when the steps start over, microseconds from the start; undefined = run once. */
  periodUs?: number;
}

/**
 * Checks a schedule (the file's JSON). `flag` names the option in errors (`--link-schedule steps[2].at`).
 * `startLink` is the link before the first step (the flags'), which the steps' keys must suit too.
 */
export function parseLinkSchedule(json: unknown, flag = '--link-schedule', startLink: LinkSettings = defaultLinkSettings()): LinkSchedule {
  // A bare list's steps are named as the loop form's are: steps[2].at.
  const named = keyPath();
  const flagOf = (path: readonly PropertyKey[]): string => (path.length === 0 ? flag : `${flag} ${named(path)}`);
  const form: z.output<typeof LOOP> = Array.isArray(json)
    ? { loop: false, steps: parseWith(STEPS, json, (path) => flagOf(['steps', ...path])) }
    : parseWith(LOOP, json, flagOf);
  // Values in errors as the file has them ("5s"), not as parsed (microseconds).
  const raw = (Array.isArray(json) ? json : (json as { steps: unknown[] }).steps) as { at?: unknown; ramp?: unknown; partition?: unknown }[];
  const steps: ScheduleStep[] = form.steps.map((s) => ({
    atUs: s.at,
    ...(s.link !== undefined ? { link: s.link } : {}),
    ...(s.ramp !== undefined ? { rampUs: s.ramp } : {}),
    ...(s.partition !== undefined ? { partition: { durationUs: s.partition, then: s.then ?? 'heal' } } : {}),
  }));
  for (let i = 1; i < steps.length; i++) {
    if (steps[i]!.atUs <= steps[i - 1]!.atUs) {
      throw new ConfigError(`${flag} steps[${i}].at`, raw[i]!.at, `a time after steps[${i - 1}].at (steps in time order)`);
    }
  }
  for (let i = 0; i < steps.length - 1; i++) {
    const s = steps[i]!;
    if (s.rampUs !== undefined && s.atUs + s.rampUs > steps[i + 1]!.atUs) {
      throw new ConfigError(`${flag} steps[${i}].ramp`, raw[i]!.ramp, `a ramp that ends by steps[${i + 1}].at`);
    }
  }
  checkPartitionsApart(steps, undefined, flag, raw);
  checkStepsApply(steps, startLink, form.loop, flag, raw as { link?: Record<string, unknown> }[]);
  if (!form.loop) return { steps };
  const n = steps.length;
  const last = steps[n - 1]!;
  const gapUs = n > 1 ? last.atUs - steps[n - 2]!.atUs : last.atUs;
  const periodUs = form.period ?? last.atUs + gapUs;
  if (periodUs <= last.atUs || periodUs < last.atUs + (last.rampUs ?? 0)) {
    const bound = last.rampUs === undefined ? `above ${last.atUs} us` : `above ${last.atUs} us and at least ${last.atUs + last.rampUs} us`;
    const fallback = form.period === undefined ? ` (the default, the last step held as long as the gap before it, gives ${periodUs} us)` : '';
    throw new ConfigError(`${flag} period`, (json as { period?: unknown }).period, `a period after the last step and its ramp, ${bound}${fallback}`);
  }
  checkPartitionsApart(steps, periodUs, flag, raw);
  return { steps, periodUs };
}

/**
 * One partition at a time (PUT /link refuses a second while one runs): a partition step that starts
 * before the one ahead of it has ended would only be logged and skipped when its time came, so the
 * file is refused instead. Back to back is refused too: that is one longer partition, which the
 * file should say as one. With a period, the last one must end before the first one's next pass.
 */
function checkPartitionsApart(steps: ScheduleStep[], periodUs: number | undefined, flag: string, raw: { partition?: unknown }[]): void {
  const cuts = steps.flatMap((s, i) => (s.partition === undefined ? [] : [{ i, atUs: s.atUs, endUs: s.atUs + s.partition.durationUs }]));
  const pairs = cuts.slice(1).map((later, k) => ({ earlier: cuts[k]!, later, laterAtUs: later.atUs }));
  if (periodUs !== undefined && cuts.length > 0) {
    pairs.push({ earlier: cuts[cuts.length - 1]!, later: cuts[0]!, laterAtUs: periodUs + cuts[0]!.atUs });
  }
  for (const { earlier, later, laterAtUs } of pairs) {
    if (laterAtUs > earlier.endUs) continue;
    const pass = later.i <= earlier.i ? ' on the next pass' : '';
    throw new ConfigError(
      `${flag} steps[${later.i}].partition`,
      raw[later.i]!.partition,
      `a partition that starts${pass} after steps[${earlier.i}]'s has ended (at ${earlier.endUs} us; one partition at a time)`,
    );
  }
}

/** The keys of a step's link that a burst too short for the loss can be blamed on, the burst first. */
const LOSS_KEYS = ['lossBurst', 'loss', 'lossUp', 'lossDown'] as const;

/**
 * Each step's link applied in order over `startLink` (a loop twice: its second pass starts from
 * where the first ended, and every pass after is the second again). Keys the link refuses together
 * (a burst too short for the loss it then has) threw from the step's timer when its time came,
 * ending the proxy; they are refused here, before anything starts, naming the step's key.
 */
function checkStepsApply(steps: ScheduleStep[], startLink: LinkSettings, loop: boolean, flag: string, raw: { link?: Record<string, unknown> }[]): void {
  let link = startLink;
  for (let pass = 0; pass < (loop ? 2 : 1); pass++) {
    steps.forEach((step, i) => {
      if (step.link === undefined) return;
      try {
        link = applyLinkUpdate(link, step.link);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        const key = LOSS_KEYS.find((k) => step.link![k] !== undefined) ?? err.flag;
        const when = pass === 0 ? 'when this step applies' : 'when this step applies on the next pass';
        throw new ConfigError(`${flag} steps[${i}].link.${key}`, raw[i]!.link?.[key], `${err.accepts} (${when})`);
      }
    });
  }
}
