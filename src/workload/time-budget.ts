/**
 * What fits in `bench --max-seconds`: decides before each sample whether to run it, skip it, keep it
 * for the end, or stop. The bound is on the whole run (set-up included), and the promise is: the run
 * finishes within the bound plus one sample, and prints what finished.
 *
 * The rules, in the rotated order the runner already uses:
 *  - past the bound nothing new starts;
 *  - a warm-up runs only if it and its configuration's first timed sample both fit in the time left:
 *    a timed sample is worth more than a warm-up (the configuration's note says it ran cold);
 *  - a timed sample that does not fit the time left is kept for the end if its configuration has
 *    no timed sample yet (so cheap cells take their repetitions first), dropped otherwise;
 *  - at the end, a kept sample starts while any time is left: that one sample is the overshoot.
 * Estimates are rough (plan.ts); a sample that runs longer than estimated is caught by the first rule.
 */
export type BudgetDecision = 'run' | 'skip' | 'defer' | 'stop';

export class TimeBudget {
  constructor(
    readonly boundMs: number,
    private readonly startedAtMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  leftMs(): number {
    return this.boundMs - (this.now() - this.startedAtMs);
  }

  warmup(warmupEstimateMs: number, firstTimedEstimateMs: number): BudgetDecision {
    const left = this.leftMs();
    if (left <= 0) return 'stop';
    return warmupEstimateMs + firstTimedEstimateMs <= left ? 'run' : 'skip';
  }

  timed(estimateMs: number, hasTimedSample: boolean): BudgetDecision {
    const left = this.leftMs();
    if (left <= 0) return 'stop';
    if (estimateMs <= left) return 'run';
    return hasTimedSample ? 'skip' : 'defer';
  }

  /** A sample kept for the end: it starts while any time is left. */
  late(): BudgetDecision {
    return this.leftMs() > 0 ? 'run' : 'stop';
  }
}
