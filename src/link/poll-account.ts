import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.js';
import type { PollRunEnd } from '../stage/types.js';

/**
 * What the scheduler's polling cost the loop: the wall time of its runs of poll turns and of its
 * busy-waits, for the poll budget and for the self-report's read-wait estimate
 * (proxy/self-monitor.ts), which must know when the loop was polling, spinning or asleep.
 */
export class PollAccount {
  /** Wall time of the runs of poll turns that ended, cumulative. */
  private doneNs = 0;
  /** When the current run of poll turns began; -1 while not polling. */
  private spanStartNs = -1;
  private spunTotalNs = 0;
  private idleAtSpinEnd = 0;
  private chainedNs = -1;
  private turnEndNs = -1;
  private readonly runEnd: PollRunEnd = { endNs: -1, idleMs: 0, pollNs: 0, spunNs: 0 };

  constructor(private readonly clock: Clock) {}

  /** A run of poll turns starts (or goes on). */
  polling(): void {
    if (this.spanStartNs < 0) this.spanStartNs = this.clock.nowNs();
  }

  /** A busy-wait ran from startNs to endNs. */
  spun(startNs: number, endNs: number): void {
    this.spunTotalNs += endNs - startNs;
    this.idleAtSpinEnd = performance.nodeTiming.idleTime;
  }

  /** The poll turn that began at startNs ended at endNs, asking for another turn or not. */
  turnEnded(startNs: number, endNs: number, again: boolean): void {
    this.chainedNs = again ? startNs : -1;
    this.turnEndNs = endNs;
    if (again) return;
    this.doneNs += endNs - this.spanStartNs;
    this.spanStartNs = -1;
    const run = this.runEnd;
    run.endNs = endNs;
    run.idleMs = performance.nodeTiming.idleTime;
    run.pollNs = this.pollNs;
    run.spunNs = this.spunTotalNs;
  }

  /** Wall time of all poll runs, busy-waits included (what the poll budget counts). */
  spanNs(): number {
    return this.spanStartNs < 0 ? this.doneNs : this.doneNs + (this.clock.nowNs() - this.spanStartNs);
  }

  /**
   * Wall time the loop spent polling (from the first poll turn of a run of them to the last),
   * cumulative, less the busy-waits: while it polls, a read waits at most one short turn, so the
   * self-report's read-wait estimate does not count this time as a stall (a busy-wait it does).
   */
  get pollNs(): number {
    return this.spanNs() - this.spunTotalNs;
  }

  /** Time spent in busy-waits, cumulative: the loop was blocked then, a read that came waited for it. */
  get spunNs(): number {
    return this.spunTotalNs;
  }

  /**
   * libuv's idle time (ms, `performance.nodeTiming.idleTime`) when the last busy-wait ended. Once
   * the loop has slept since, no read can still be waiting for that busy-wait: a sleeping loop has
   * nothing ready to read.
   */
  get idleAtSpinEndMs(): number {
    return this.idleAtSpinEnd;
  }

  /**
   * When the latest poll turn began, while it asked for another (so the loop has not slept since):
   * a read in the turn after it found bytes that came after that turn's epoll, at worst while this
   * poll fired its deliveries (the self-report's read wait). -1 once a run of poll turns ended.
   */
  get chainedPollStartNs(): number {
    return this.chainedNs;
  }

  /** Where the latest run of poll turns ended, and the loop's account then (one object, rewritten). */
  get lastRunEnd(): Readonly<PollRunEnd> {
    return this.runEnd;
  }

  /** When the latest poll turn ended, or -1 before the first. */
  get lastTurnEndNs(): number {
    return this.turnEndNs;
  }
}
