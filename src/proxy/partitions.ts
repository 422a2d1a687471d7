/**
 * The proxy's partitions (PUT /link {"partition": "10s"}, a schedule's partition step): one at a
 * time, over every live connection and the ones accepted while it lasts (connection.ts holds
 * those). Its end resets the connections whose sender gives up (`then: reset`, or a partition
 * longer than Linux retransmits); the others resend on their own timers (partition.ts).
 */
import { ConfigError } from '../errors.js';
import { fmtUsSetting } from '../format.js';
import type { LinkState } from '../link/link-state.js';
import type { PartitionRequest, PartitionWindow } from '../link/partition.js';
import type { PartitionReport } from '../link/timeline-report.js';
import type { Scheduler, Timer } from '../stage/types.js';
import type { ProxiedConnection } from './connection.js';

export class Partitions {
  private resetCount = 0;
  /** The running partition's end (cancelled when the proxy closes). */
  private endTimer: Timer | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly link: LinkState,
    private readonly connections: () => Iterable<ProxiedConnection>,
    private readonly log: (line: string) => void,
  ) {}

  /** Refuses (ConfigError naming `partition`) what could not start now, before anything changes. */
  check(request: PartitionRequest, closed: boolean): void {
    // The value as a flag spells it ("1s"), not in microseconds.
    const asked = fmtUsSetting(request.durationUs);
    if (closed) throw new ConfigError('partition', asked, 'a proxy that is running (this one is closed)');
    const running = this.running();
    if (running) {
      const leftMs = Math.ceil((running.endNs - this.scheduler.clock.nowNs()) / 1e6);
      throw new ConfigError('partition', asked, `no partition while one runs (it heals in ${leftMs} ms)`);
    }
  }

  start(request: PartitionRequest): PartitionWindow {
    const startNs = this.scheduler.clock.nowNs();
    const window: PartitionWindow = { startNs, endNs: startNs + request.durationUs * 1000, then: request.then };
    this.link.partition = window;
    const rtoNs = this.link.rtoNs();
    for (const c of this.connections()) c.partition(window, rtoNs);
    this.resetCount = 0;
    this.endTimer = this.scheduler.schedule(window.endNs, () => this.ended(window));
    this.log(`partition for ${request.durationUs / 1000} ms, then ${request.then} (RTO ${rtoNs / 1e6} ms)`);
    return window;
  }

  /** A schedule's partition step: one that cannot start (another runs) is logged, the schedule goes on. */
  startScheduled(request: PartitionRequest, closed: boolean): void {
    try {
      this.check(request, closed);
      this.start(request);
    } catch (err) {
      this.log(`--link-schedule: ${(err as Error).message}`);
    }
  }

  /** The proxy closed: its connections are gone, and nothing is left to end. */
  close(): void {
    if (this.endTimer) this.scheduler.cancel(this.endTimer);
    this.endTimer = undefined;
  }

  report(): PartitionReport | undefined {
    const w = this.link.partition;
    if (w === undefined) return undefined;
    const nowNs = this.scheduler.clock.nowNs();
    return {
      active: nowNs < w.endNs,
      startedMsAgo: Math.round((nowNs - w.startNs) / 1e6),
      durationMs: (w.endNs - w.startNs) / 1e6,
      then: w.then,
      resetConnections: this.resetCount,
    };
  }

  private running(): PartitionWindow | undefined {
    const w = this.link.partition;
    return w !== undefined && this.scheduler.clock.nowNs() < w.endNs ? w : undefined;
  }

  private ended(window: PartitionWindow): void {
    for (const c of [...this.connections()]) {
      if (!c.givesUpAfter(window)) continue;
      this.resetCount++;
      c.reset();
    }
    if (this.resetCount > 0) this.log(`partition over: reset ${this.resetCount} connection(s) whose sender gave up`);
  }
}
