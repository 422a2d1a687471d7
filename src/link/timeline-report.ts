/** What /stats says of a link that moves over time and of its partitions (docs/counters.md). */
import type { PartitionEnd } from './partition.js';
import type { RttWave } from './wave.js';

/** Where a moving link is now (absent on a constant link). */
export interface TimelineReport {
  /** Since the proxy started its link (after the start-up hop measurement). */
  elapsedMs: number;
  /** The mean one-way delays now (before jitter). */
  delaysUs: { upUs: number; downUs: number };
  wave?: RttWave;
  /** The series row that holds now (0-based), of how many; `once`: it keeps its last value at the end. */
  series?: { row: number; rows: number; once: boolean };
  /**
   * The schedule's last step whose time came (0-based, -1 before the first), of how many, in which
   * pass of a loop (0 first), and when the next is due. `skipped` counts the steps refused when their
   * time came (a PUT /link since made them unfit), so `step` alone does not say one was applied;
   * `lastSkipped` names the latest and why.
   */
  schedule?: { step: number; steps: number; loop: number; nextAtMs?: number; skipped: number; lastSkipped?: SkippedStep };
}

/** A schedule step refused when its time came: nothing of it applied (docs/link-over-time.md). */
export interface SkippedStep {
  step: number;
  loop: number;
  reason: string;
}

/** The last partition (absent when none ran). */
export interface PartitionReport {
  active: boolean;
  startedMsAgo: number;
  durationMs: number;
  then: PartitionEnd;
  /** Connections it reset (their sender gave up): at its end, or at the give-up before or after it. */
  resetConnections: number;
}
