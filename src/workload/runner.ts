import type { Redis } from 'ioredis';
import type { WorkloadData } from './keys.js';
import type { LinkEndpoint } from './links.js';
import { estimateSampleMs, type Configuration } from './plan.js';
import { runSample, type SampleOutcome } from './sample.js';
import { SampleAborted } from './shapes/index.js';
import type { Workload } from '../results/types.js';

export type BenchProgress =
  | { type: 'estimate'; estimateMs: number; configurations: number; samples: number }
  | {
      type: 'sample';
      phase: 'warmup' | 'timed';
      done: number;
      total: number;
      label: string;
      /** This sample's time; 0 when it failed. */
      sampleMs: number;
      elapsedMs: number;
      etaMs: number;
    }
  | { type: 'failed'; label: string; error: string }
  | { type: 'note'; text: string };

export interface RunnerInput {
  configs: Configuration[];
  /** By link name. */
  links: Map<string, LinkEndpoint>;
  admin: Redis;
  data: Map<Workload, WorkloadData>;
  luaSha: Map<Workload, string>;
  /** Configurations that failed before the run (the client warm-up), by index, with why. */
  failedBefore?: Map<number, string>;
  /** Stop starting new samples once this much time has passed since startedAtMs. */
  maxSeconds?: number;
  startedAtMs: number;
  signal?: AbortSignal;
  progress?: (ev: BenchProgress) => void;
}

export interface ConfigOutcome {
  config: Configuration;
  samples: SampleOutcome[];
  error?: string;
}

export interface RunnerOutput {
  outcomes: ConfigOutcome[];
  notes: string[];
  /** Why the run stopped early, if it did. */
  stopped?: 'max-seconds' | 'aborted';
}

/** A configuration in progress lines and notes: "local pipeline B=100 incr n=1000" (reports use report/order's configLabel). */
export function runLabel(c: Configuration): string {
  const batch = c.mode === 'seq' ? '' : ` B=${c.batch}`;
  return `${c.link.name} ${c.mode}${batch} ${c.workload} n=${c.n}`;
}

/**
 * The method: every configuration gets its warm-up samples first (verified, not kept), then
 * timed repetitions in rotated order: repetition r starts at configuration r mod K, so no
 * configuration always runs first or right after the same neighbour. A failed configuration
 * keeps its error and stops; the others go on.
 */
export async function runConfigurations(input: RunnerInput): Promise<RunnerOutput> {
  const { configs } = input;
  const outcomes: ConfigOutcome[] = configs.map((config) => ({ config, samples: [] }));
  for (const [index, error] of input.failedBefore ?? []) {
    const outcome = outcomes[index];
    if (!outcome) continue;
    outcome.error = error;
    input.progress?.({ type: 'failed', label: runLabel(outcome.config), error });
  }
  const schedule = buildSchedule(configs);
  const estimates = schedule.map((s) => estimateSampleMs(configs[s.index] as Configuration));
  let estimatedLeftMs = estimates.reduce((a, b) => a + b, 0);
  let estimatedDoneMs = 0;
  const runStartMs = Date.now();
  let stopped: RunnerOutput['stopped'];

  for (let k = 0; k < schedule.length; k++) {
    const step = schedule[k] as ScheduleStep;
    const outcome = outcomes[step.index] as ConfigOutcome;
    const c = outcome.config;
    estimatedLeftMs -= estimates[k] as number;
    if (outcome.error) continue;
    if (input.signal?.aborted) {
      stopped = 'aborted';
      break;
    }
    if (input.maxSeconds !== undefined && Date.now() - input.startedAtMs > input.maxSeconds * 1000) {
      stopped = 'max-seconds';
      break;
    }
    const link = input.links.get(c.link.name);
    const client = c.mode === 'auto' ? link?.auto : link?.plain;
    if (!link || !client) throw new Error(`no open link for ${c.link.name}`);
    let sampleMs = 0;
    try {
      const sample = await runSample(c, {
        admin: input.admin,
        client,
        ...(link.proxy ? { proxy: link.proxy } : {}),
        data: input.data.get(c.workload) as WorkloadData,
        luaSha: input.luaSha.get(c.workload) ?? '',
        ...(input.signal ? { signal: input.signal } : {}),
      });
      sampleMs = sample.ms;
      if (step.phase === 'timed') outcome.samples.push(sample);
    } catch (err) {
      if (err instanceof SampleAborted) {
        stopped = 'aborted';
        break;
      }
      outcome.error = (err as Error).message;
      input.progress?.({ type: 'failed', label: runLabel(c), error: outcome.error });
      // If the link itself is gone, its next configurations fail on the closed client, each saying so.
      await link.renew(c.mode === 'auto' ? 'auto' : 'plain').catch(() => {});
    }
    estimatedDoneMs += estimates[k] as number;
    const elapsedMs = Date.now() - runStartMs;
    // Scale what is left by how far off the estimate has been so far.
    const pace = estimatedDoneMs > 0 ? elapsedMs / estimatedDoneMs : 1;
    input.progress?.({
      type: 'sample',
      phase: step.phase,
      done: k + 1,
      total: schedule.length,
      label: runLabel(c),
      sampleMs,
      elapsedMs,
      etaMs: Math.max(0, estimatedLeftMs * pace),
    });
  }

  const notes: string[] = [];
  if (stopped) {
    const why = stopped === 'aborted' ? 'stopped on request' : `stopped after --max-seconds ${input.maxSeconds}`;
    notes.push(`${why}: results below hold only the samples that finished`);
    for (const o of outcomes) {
      if (!o.error && o.samples.length < o.config.repeat) {
        o.config.note = joinNote(o.config.note, `${o.samples.length} of ${o.config.repeat} repetitions (${why})`);
      }
    }
  }
  return { outcomes, notes, ...(stopped ? { stopped } : {}) };
}

interface ScheduleStep {
  index: number;
  phase: 'warmup' | 'timed';
}

/** Warm-ups in plan order, then repetition r visits configurations starting at r mod K. */
export function buildSchedule(configs: readonly Configuration[]): ScheduleStep[] {
  const steps: ScheduleStep[] = [];
  const k = configs.length;
  const maxWarmup = Math.max(0, ...configs.map((c) => c.warmup));
  for (let w = 0; w < maxWarmup; w++) {
    for (const c of configs) if (c.warmup > w) steps.push({ index: c.index, phase: 'warmup' });
  }
  const maxRepeat = Math.max(0, ...configs.map((c) => c.repeat));
  for (let r = 0; r < maxRepeat; r++) {
    for (let j = 0; j < k; j++) {
      const c = configs[(r + j) % k] as Configuration;
      if (c.repeat > r) steps.push({ index: c.index, phase: 'timed' });
    }
  }
  return steps;
}

export function joinNote(a: string | undefined, b: string): string {
  return a ? `${a}; ${b}` : b;
}
