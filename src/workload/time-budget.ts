/**
 * What fits in `bench --max-seconds`: decides before each sample whether to run it, skip it, or
 * stop. The bound is on the whole run (set-up included). The promise: a sample starts only when its
 * expected time fits in what is left, so the run ends within the bound plus the estimate error of
 * the last sample it started (the runner states that overrun), and prints what finished.
 *
 * The rules, in the rotated order the runner already uses:
 *  - past the bound nothing new starts;
 *  - a warm-up runs only if it and its configuration's first timed sample both fit in the time left:
 *    a timed sample is worth more than a warm-up (the configuration's note says it ran cold);
 *  - a timed sample runs only if it fits in the time left; one that does not is skipped (a cheaper
 *    one later in the order may still fit).
 * Estimates are rough (plan.ts); a sample that runs longer than estimated is caught by the first rule.
 */
export type BudgetDecision = 'run' | 'skip' | 'stop';

export class TimeBudget {
  constructor(
    readonly boundMs: number,
    private readonly startedAtMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  leftMs(): number {
    return this.boundMs - this.elapsedMs();
  }

  elapsedMs(): number {
    return this.now() - this.startedAtMs;
  }

  warmup(warmupEstimateMs: number, firstTimedEstimateMs: number): BudgetDecision {
    const left = this.leftMs();
    if (left <= 0) return 'stop';
    return warmupEstimateMs + firstTimedEstimateMs <= left ? 'run' : 'skip';
  }

  timed(estimateMs: number): BudgetDecision {
    const left = this.leftMs();
    if (left <= 0) return 'stop';
    return estimateMs <= left ? 'run' : 'skip';
  }
}
