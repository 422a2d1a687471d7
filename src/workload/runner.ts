import type { Redis } from 'ioredis';
import type { WorkloadData } from './keys.js';
import type { LinkEndpoint } from './links.js';
import { estimateSampleMs, type Configuration } from './plan.js';
import { runSample, type SampleOutcome } from './sample.js';
import { SampleAborted } from './shapes/index.js';
import { TimeBudget, type BudgetDecision } from './time-budget.js';
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
  /** Its timed samples did not fit --max-seconds: one sample's expected time, the time left then, and the bound. */
  skipped?: { expectedMs: number; leftMs: number; boundMs: number };
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
 * The method: each configuration gets its warm-up samples (verified, not kept) just before its first
 * timed sample, then timed repetitions in rotated order: repetition r starts at configuration r mod K,
 * so no configuration always runs first or right after the same neighbour. A failed configuration
 * keeps its error and stops; the others go on. With maxSeconds, a TimeBudget decides what fits.
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
  const estimateOf = (index: number): number => estimateSampleMs(configs[index] as Configuration);
  let estimatedLeftMs = schedule.reduce((sum, s) => sum + estimateOf(s.index), 0);
  let estimatedDoneMs = 0;
  let done = 0;
  const runStartMs = Date.now();
  const budget = input.maxSeconds !== undefined ? new TimeBudget(input.maxSeconds * 1000, input.startedAtMs) : undefined;
  // A sample longer than the whole bound is skipped whether or not the run reaches its turn: the notes say so, as
  // the line before the run does, where a run stopped earlier listed it as "not run".
  if (budget) {
    for (const [index, outcome] of outcomes.entries()) {
      const expectedMs = estimateOf(index);
      if (expectedMs > budget.boundMs) outcome.skipped = { expectedMs, leftMs: budget.boundMs, boundMs: budget.boundMs };
    }
  }
  const coldNote = new Set<number>();
  let lastStarted: { label: string; expectedMs: number; ms: number } | undefined;
  let stopped: RunnerOutput['stopped'];

  const decide = (step: ScheduleStep): BudgetDecision => {
    if (!budget) return 'run';
    if (step.phase === 'warmup') return budget.warmup(estimateOf(step.index), estimateOf(step.index));
    const decision = budget.timed(estimateOf(step.index));
    const outcome = outcomes[step.index] as ConfigOutcome;
    if (decision === 'skip') outcome.skipped ??= { expectedMs: estimateOf(step.index), leftMs: budget.leftMs(), boundMs: budget.boundMs };
    return decision;
  };

  /** Runs one step; false when the run must stop. */
  const runStep = async (step: ScheduleStep): Promise<boolean> => {
    const outcome = outcomes[step.index] as ConfigOutcome;
    const c = outcome.config;
    estimatedLeftMs -= estimateOf(step.index);
    if (outcome.error) return true;
    if (input.signal?.aborted) {
      stopped = 'aborted';
      return false;
    }
    const decision = decide(step);
    if (decision === 'stop') {
      stopped = 'max-seconds';
      return false;
    }
    if (decision === 'skip' && step.phase === 'warmup') coldNote.add(step.index);
    if (decision !== 'run') return true;
    const link = input.links.get(c.link.name);
    const client = c.mode === 'auto' ? link?.auto : link?.plain;
    if (!link || !client) throw new Error(`no open link for ${c.link.name}`);
    let sampleMs = 0;
    const sampleStartMs = Date.now();
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
        return false;
      }
      outcome.error = (err as Error).message;
      input.progress?.({ type: 'failed', label: runLabel(c), error: outcome.error });
      // If the link itself is gone, its next configurations fail on the closed client, each saying so.
      await link.renew(c.mode === 'auto' ? 'auto' : 'plain').catch(() => {});
    }
    lastStarted = { label: runLabel(c), expectedMs: estimateOf(step.index), ms: Date.now() - sampleStartMs };
    estimatedDoneMs += estimateOf(step.index);
    const elapsedMs = Date.now() - runStartMs;
    // Scale what is left by how far off the estimate has been so far.
    const pace = estimatedDoneMs > 0 ? elapsedMs / estimatedDoneMs : 1;
    input.progress?.({
      type: 'sample',
      phase: step.phase,
      done: ++done,
      total: schedule.length,
      label: runLabel(c),
      sampleMs,
      elapsedMs,
      etaMs: Math.max(0, budget ? Math.min(estimatedLeftMs * pace, budget.leftMs()) : estimatedLeftMs * pace),
    });
    return true;
  };

  for (const step of schedule) if (!(await runStep(step))) break;

  const notes: string[] = [];
  if (budget) notes.push(boundNote(budget.elapsedMs(), budget.boundMs, lastStarted));
  for (const index of coldNote) {
    const c = configs[index] as Configuration;
    c.note = joinNote(c.note, `warm-up skipped to fit --max-seconds ${input.maxSeconds}`);
  }
  const short = outcomes.filter((o) => !o.error && o.samples.length < o.config.repeat);
  if (stopped || (budget && short.length > 0)) {
    const why = stopped === 'aborted' ? 'stopped on request' : `stopped within --max-seconds ${input.maxSeconds}`;
    notes.push(`${why}: results below hold only the samples that finished`);
    for (const o of short) o.config.note = joinNote(o.config.note, `${o.samples.length} of ${o.config.repeat} repetitions (${why})`);
  }
  return { outcomes, notes, ...(stopped ? { stopped } : short.length > 0 && budget ? { stopped: 'max-seconds' as const } : {}) };
}

/** How the run ended against --max-seconds: within it, or past it by how much and on which sample. */
export function boundNote(elapsedMs: number, boundMs: number, last: { label: string; expectedMs: number; ms: number } | undefined): string {
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const head = `ran ${s(elapsedMs)} of --max-seconds ${boundMs / 1000}`;
  if (elapsedMs <= boundMs || !last) return `${head}: within the bound`;
  return `${head}: ${s(elapsedMs - boundMs)} over, in the last sample started (${last.label}: expected ${s(last.expectedMs)}, took ${s(last.ms)})`;
}

interface ScheduleStep {
  index: number;
  phase: 'warmup' | 'timed';
}

/**
 * Repetition r visits configurations starting at r mod K; a configuration's warm-ups come right
 * before its first timed sample, so a run stopped early never holds warm-ups of cells it never timed,
 * and the warm-up's effect (caches, the proxy's JIT, TCP windows) is fresh when timing starts.
 */
export function buildSchedule(configs: readonly Configuration[]): ScheduleStep[] {
  const steps: ScheduleStep[] = [];
  const k = configs.length;
  const maxRepeat = Math.max(0, ...configs.map((c) => c.repeat));
  for (let r = 0; r < maxRepeat; r++) {
    for (let j = 0; j < k; j++) {
      const c = configs[(r + j) % k] as Configuration;
      if (r === 0) for (let w = 0; w < c.warmup; w++) steps.push({ index: c.index, phase: 'warmup' });
      if (c.repeat > r) steps.push({ index: c.index, phase: 'timed' });
    }
  }
  return steps;
}

export function joinNote(a: string | undefined, b: string): string {
  return a ? `${a}; ${b}` : b;
}
