/**
 * The proxy's partitions (PUT /link {"partition": "10s"}, a schedule's partition step): one at a
 * time, over every live connection and the ones accepted while it lasts (connection.ts holds
 * those). Its end resets the connections whose sender gives up (`then: reset`, or a partition
 * longer than Linux retransmits); the others resend on their own timers (partition.ts).
 */
import { ConfigError } from '../errors.js';
import { fmtUsSetting } from '../format.js';
import type { LinkState } from '../link/link-state.js';
import { GIVE_UP_NS, type PartitionRequest, type PartitionWindow } from '../link/partition.js';
import type { PartitionReport } from '../link/timeline-report.js';
import type { Scheduler, Timer } from '../stage/types.js';
import type { ProxiedConnection } from './connection.js';

export class Partitions {
  private resetCount = 0;
  /** The running partition's end (cancelled when the proxy closes). */
  private endTimer: Timer | undefined;
  /** In a partition longer than Linux retransmits: the next sender's give-up (cancelled when the proxy closes). */
  private giveUpTimer: Timer | undefined;
  /** The connections this partition reset (weakly: they close and go). */
  private reset = new WeakSet<ProxiedConnection>();

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
    const startNs = request.startNs ?? this.scheduler.clock.nowNs();
    const window: PartitionWindow = { startNs, endNs: startNs + request.durationUs * 1000, then: request.then };
    this.link.partition = window;
    const rtoNs = this.link.rtoNs();
    for (const c of this.connections()) c.partition(window, rtoNs);
    this.resetCount = 0;
    this.reset = new WeakSet();
    this.endTimer = this.scheduler.schedule(window.endNs, () => this.ended(window));
    // One still armed for the last partition's senders that give up after its heal: their flights are this one's now.
    if (this.giveUpTimer) this.scheduler.cancel(this.giveUpTimer);
    this.giveUpTimer = undefined;
    // No sender gives up before its first loss, so none before GIVE_UP_NS from the start.
    if (window.endNs - startNs > GIVE_UP_NS) this.giveUpTimer = this.scheduler.schedule(startNs + GIVE_UP_NS, () => this.giveUps(window));
    this.log(`partition for ${request.durationUs / 1000} ms, then ${request.then} (RTO ${Math.round(rtoNs / 1e5) / 10} ms)`);
    return window;
  }

  /** The proxy closed: its connections are gone, and nothing is left to end. */
  close(): void {
    if (this.endTimer) this.scheduler.cancel(this.endTimer);
    if (this.giveUpTimer) this.scheduler.cancel(this.giveUpTimer);
    this.endTimer = undefined;
    this.giveUpTimer = undefined;
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

  /**
   * Resets the connections whose sender has given up by now (tcp_retries2: 924.6 s after its first
   * loss), when Linux would, not at the heal: a 1 h partition reset them at 60 min, not 15.4. Then
   * waits for the next one that gives up before the heal, or after it (its resend, past the give-up,
   * would never leave).
   */
  private giveUps(window: PartitionWindow): void {
    this.giveUpTimer = undefined;
    const nowNs = this.scheduler.clock.nowNs();
    const running = nowNs < window.endNs;
    const before = this.resetCount;
    // While it runs, a connection that loses its first bytes after now gives up GIVE_UP_NS after that at the earliest.
    let nextNs = running ? nowNs + GIVE_UP_NS : Infinity;
    for (const c of [...this.connections()]) {
      const atNs = c.giveUpAtNs(window);
      if (atNs === undefined || this.reset.has(c)) continue;
      if (atNs > nowNs) nextNs = Math.min(nextNs, atNs);
      else this.resetOne(c);
    }
    if (this.resetCount > before) this.log(`partition: reset ${this.resetCount - before} connection(s) whose sender gave up (tcp_retries2, ${GIVE_UP_NS / 1e9} s)`);
    // Those that give up after the end: the end's own check (ended) arms for them.
    if (running ? nextNs < window.endNs : nextNs < Infinity) this.giveUpTimer = this.scheduler.schedule(nextNs, () => this.giveUps(window));
  }

  /** Resets a connection whose sender gave up, once (a give-up and the end may come in one turn). */
  private resetOne(c: ProxiedConnection): void {
    this.reset.add(c);
    this.resetCount++;
    c.reset();
  }

  private ended(window: PartitionWindow): void {
    const nowNs = this.scheduler.clock.nowNs();
    for (const c of [...this.connections()]) {
      if (this.reset.has(c) || !c.givesUpAfter(window)) continue;
      // A sender that gives up only after the heal, before its resend, is reset then (giveUps below).
      const giveUpNs = window.then === 'reset' ? undefined : c.giveUpAtNs(window);
      if (giveUpNs === undefined || giveUpNs <= nowNs) this.resetOne(c);
    }
    if (this.resetCount > 0) this.log(`partition over: reset ${this.resetCount} connection(s) whose sender gave up`);
    if (this.giveUpTimer) this.scheduler.cancel(this.giveUpTimer);
    this.giveUps(window);
  }
}
