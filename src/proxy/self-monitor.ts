/**
 * The proxy's own tail, reported beside what it measures (/stats `self`, /metrics): how late each
 * delivery left against its due time (all, and per direction), how long a read waited behind the
 * other callbacks of its event-loop turn, the event loop's delay (loop-delay.ts) and GC pauses
 * (a PerformanceObserver), and per delivered chunk the time it spent beyond the configured delay,
 * counted from an estimate of when its bytes came (`addedUs`). The loop and GC monitors run only
 * while a connection is open, so an idle proxy wakes for nothing.
 */
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { SelfQuantiles, SelfReport } from '../stats/self-report.js';
import type { Direction, Scheduler } from '../stage/types.js';
import { LoopDelay, type WakeSource } from './loop-delay.js';

export type { SelfReport } from '../stats/self-report.js';

/** What the scheduler tells of the loop's time (PreciseScheduler has all of it). */
export type LoopAccount = Pick<Scheduler, 'pollNs' | 'wakeAfterNs' | 'spunNs' | 'idleAtSpinEndMs' | 'chainedPollStartNs' | 'lastTurnEndNs' | 'lastRunEnd'> & WakeSource;
/**
 * libuv's count of loop turns, or -1 where Node does not give it (`uvMetricsInfo` came in 20.18
 * and 22.8): each read is then taken to start a turn of its own, after turns not seen.
 */
const HAS_LOOP_COUNT = (performance.nodeTiming as { uvMetricsInfo?: unknown }).uvMetricsInfo !== undefined;
function loopCount(): number {
  return HAS_LOOP_COUNT ? performance.nodeTiming.uvMetricsInfo.loopCount : -1;
}

/** A power of two. */
const ARRIVAL_SAMPLE = 8;

export class SelfMonitor {
  private readonly late = new LatencyHistogram();
  private readonly lateUp = new LatencyHistogram();
  private readonly lateDown = new LatencyHistogram();
  private readonly arrival = new LatencyHistogram();
  private readonly gc = new LatencyHistogram();
  private readonly added = new LatencyHistogram();
  private readonly roundTripAdded = new LatencyHistogram();
  /** For the read-wait estimate: the previous read, and the loop's idle and poll time then. */
  private lastReadNs = -1;
  private lastIdleNs = 0;
  private lastPollNs = 0;
  private lastSpunNs = 0;
  private waitNs = 0;
  private readonly loop: LoopDelay;
  private gcObserver: PerformanceObserver | undefined;
  private open = 0;
  /** When the first read of the current event-loop turn ran (-1: none yet this turn). */
  private turnStartNs = -1;
  /** The earliest the bytes of the current turn's batch can have come: its first read less that read's wait. */
  private batchFloorNs = 0;
  /** libuv's loop turn of the previous read, and that turn's first read. */
  private lastTurn = -1;
  private lastTurnFirstReadNs = 0;
  private reads = 0;
  private readonly endTurn = (): void => {
    this.turnStartNs = -1;
  };

  constructor(
    private readonly loopAccount: LoopAccount = {},
    /** libuv's idle time, ms (injectable for tests). */
    private readonly idleTimeMs: () => number = () => performance.nodeTiming.idleTime,
    /** libuv's count of loop turns (injectable for tests); read once per batch, as it makes an object. */
    private readonly loopTurn: () => number = loopCount,
  ) {
    this.loop = new LoopDelay(loopAccount);
  }

  /** A connection opened: the monitors start with the first. */
  opened(): void {
    if (this.open++ > 0) return;
    this.loop.enable();
    this.gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) this.gc.record(e.duration * 1000);
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
  }

  /** A connection closed: the monitors stop with the last. */
  closed(): void {
    if (this.open === 0 || --this.open > 0) return;
    this.loop.disable();
    this.gcObserver?.disconnect();
    this.gcObserver = undefined;
  }

  readonly onLateness = (lateNs: number, direction: Direction): void => {
    const us = lateNs / 1000;
    this.late.record(us);
    (direction === 'up' ? this.lateUp : this.lateDown).record(us);
  };

  /**
   * A read is about to be handed on: estimate how long its bytes were there before it (the
   * read's wait, which its arrival stamp cannot show). Node stamps no readiness, but libuv counts
   * its loop's turns, and a read in turn k found bytes that came after turn k-1's epoll (else
   * that turn would have read them) and were there at turn k's:
   * - a later read of the same turn waited as long as the turn's first read, and since: one poll
   *   phase serves one epoll batch, whose sockets were all readable before its first callback;
   * - the first read of a turn right after one we saw (a read in it, or a scheduler poll turn that
   *   asked for this one): since the earliest of those, unless the loop slept in between (the
   *   bytes then woke it). What it waited for is turn k-1's callbacks: its reads, the deliveries
   *   its poll fired (each a socket write), a GC pause;
   * - otherwise, the time since the previous read (or since the scheduler's last run of poll
   *   turns ended, if later and the loop slept after it) that the loop was neither asleep in epoll
   *   (libuv's idle time) nor turning the scheduler's poll: a GC pause, a long callback, a
   *   busy-wait; bytes that came then waited for it. Busy-waits the loop has slept after do not
   *   count: it sleeps only with nothing to read, so no bytes waited for them. If it slept, add
   *   the wake-up of a sleeping thread, as the scheduler's wakes measure it.
   * Each is then capped at the time since the connection last wrote the other way (`answersNs`,
   * see `capped`): the first two count from the start of a turn, and most reads came later in it.
   */
  readonly onRead = (nowNs: number, answersNs = -1): void => {
    if (this.turnStartNs >= 0) {
      // Within a watched turn the Immediate that ends it has not run: the same batch. The
      // previous read's figures stay those of the turn's first read, a stamp of this turn.
      this.waitNs = this.capped(nowNs - this.batchFloorNs, nowNs, answersNs);
      this.arrival.record((nowNs - this.turnStartNs) / 1000);
      return;
    }
    const turn = this.loopTurn();
    const idleMs = this.idleTimeMs();
    const idleNs = idleMs * 1e6;
    const account = this.loopAccount;
    const pollNs = account.pollNs ?? 0;
    const spunNs = account.spunNs ?? 0;
    if (this.lastReadNs < 0) this.waitNs = 0;
    else if (turn >= 0 && turn === this.lastTurn) this.waitNs = nowNs - this.batchFloorNs;
    else {
      const sleptNs = idleNs - this.lastIdleNs;
      const chainedNs = account.chainedPollStartNs ?? -1;
      const afterRead = turn >= 0 && turn === this.lastTurn + 1;
      // The earliest stamp of the turn before this one: after its epoll, so no later than these bytes came.
      let seenNs = afterRead ? this.lastTurnFirstReadNs : Infinity;
      if (chainedNs >= 0) seenNs = Math.min(seenNs, chainedNs);
      // A chained poll left this turn's epoll nothing to wait for; else a sleep was this turn's own.
      if (seenNs !== Infinity && (chainedNs >= 0 || sleptNs <= 0)) this.waitNs = nowNs - seenNs;
      else this.waitNs = Math.max(0, this.stallNs(nowNs, idleMs, idleNs, pollNs, spunNs)) + (sleptNs > 0 ? this.wakeNs(nowNs) : 0);
    }
    if (turn !== this.lastTurn || turn < 0) {
      this.lastTurn = turn;
      this.lastTurnFirstReadNs = nowNs;
      this.batchFloorNs = nowNs - this.waitNs;
    }
    this.waitNs = this.capped(this.waitNs, nowNs, answersNs);
    this.lastReadNs = nowNs;
    this.lastIdleNs = idleNs;
    this.lastPollNs = pollNs;
    this.lastSpunNs = spunNs;
    this.watchTurn(nowNs);
  };

  /**
   * The loop's busy time, neither asleep nor polling, since the previous read, or since the last
   * run of poll turns ended if it came later and the loop slept after it: a loop that fell asleep
   * had nothing to read, so these bytes came later and the callbacks before (the last read's own,
   * the wake that began the poll run) cannot have held them.
   */
  private stallNs(nowNs: number, idleMs: number, idleNs: number, pollNs: number, spunNs: number): number {
    const account = this.loopAccount;
    const run = account.lastRunEnd;
    const fromRun = run !== undefined && run.endNs > this.lastReadNs && idleMs > run.idleMs;
    const fromNs = fromRun ? run.endNs : this.lastReadNs;
    let stallNs = nowNs - fromNs - (idleNs - (fromRun ? run.idleMs * 1e6 : this.lastIdleNs));
    stallNs -= pollNs - (fromRun ? run.pollNs : this.lastPollNs);
    if (idleMs > (account.idleAtSpinEndMs ?? Infinity)) stallNs -= spunNs - (fromRun ? run.spunNs : this.lastSpunNs);
    return stallNs;
  }

  /**
   * The wake-up of a read that found the loop asleep, as the scheduler learned it for a sleep as
   * long as the last one. That sleep began after the previous read and after the scheduler's last
   * poll turn (a linger after a delivery, say), at the earliest: one client 20 ms away sleeps 20 ms
   * before a delivery but only a client's wake-up before its next request, and on a VM a thread
   * that slept 20 ms wakes several times later than one that slept 0.2 ms (docs/self-report.md).
   */
  private wakeNs(nowNs: number): number {
    const account = this.loopAccount;
    if (account.wakeAfterNs === undefined) return 0;
    return account.wakeAfterNs(nowNs - Math.max(this.lastReadNs, account.lastTurnEndNs ?? -1));
  }

  /**
   * A read's bytes most likely answer the connection's last write the other way (a reply its
   * request, a client's next request the reply before it), so they came after it: the wait is
   * at most the time since. A pipelining client or a subscriber's pushes can break that, and
   * then the wait is under-counted.
   */
  private capped(waitNs: number, nowNs: number, answersNs: number): number {
    return answersNs >= 0 && nowNs - answersNs < waitNs ? Math.max(0, nowNs - answersNs) : waitNs;
  }

  /** The current read's estimated wait (see onRead), for the delay lines to stamp their chunks. */
  readonly readWaitNs = (): number => this.waitNs;

  /** A chunk left: `addedNs` is its time beyond the configured delay, read wait included. */
  readonly onAdded = (addedNs: number): void => {
    this.added.record(addedNs / 1000);
  };

  /** A reply chunk left for the client: its own added time, and that of the request chunk it follows. */
  readonly onReplyAdded = (addedNs: number, requestAddedNs: number): void => {
    this.onAdded(addedNs);
    this.roundTripAdded.record((addedNs + requestAddedNs) / 1000);
  };

  private watchTurn(nowNs: number): void {
    // With one connection open, one turn in ARRIVAL_SAMPLE is watched, from a read on: a
    // setImmediate per turn costs the one-client fast path measurably, and its reads rarely share
    // a turn. With more, every turn: there reads queue behind each other's callbacks, and a turn
    // serves many reads for its one Immediate. Reads before the watch began are missed: a lower bound.
    if (this.open < 2 && (this.reads++ & (ARRIVAL_SAMPLE - 1)) !== 0) return;
    this.turnStartNs = nowNs;
    // Check phase: after every I/O callback of this turn's poll.
    setImmediate(this.endTurn);
    this.arrival.record(0);
  };

  reset(): void {
    for (const h of [this.late, this.lateUp, this.lateDown, this.arrival, this.gc, this.added, this.roundTripAdded]) h.reset();
    this.loop.histogram.reset();
  }

  report(): SelfReport {
    return {
      lateUs: quantiles(this.late),
      addedUs: quantiles(this.added),
      roundTripAddedUs: quantiles(this.roundTripAdded),
      lateUsByDirection: { up: quantiles(this.lateUp), down: quantiles(this.lateDown) },
      arrivalLagUs: quantiles(this.arrival),
      eventLoopDelayUs: quantiles(this.loop.histogram),
      gcPauseUs: quantiles(this.gc),
    };
  }
}

function quantiles(h: LatencyHistogram): SelfQuantiles {
  const s = h.summary();
  return { p50: s.p50, p90: s.p90, p99: s.p99, max: s.max, count: s.count, mean: s.mean, sum: s.sum };
}
