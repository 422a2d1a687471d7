/**
 * Every connection's tap and what they counted: live connections, the sum of closed ones, and the
 * per-command stats all of them record into (one shared table, capped in names). snapshot() is the
 * plain JSON that GET /stats serves.
 */
import { z } from 'zod';
import { realClock, type Clock } from '../clock.js';
import { hook, keyPath, parseWith, wholeNumber, withMethods } from '../validation/schema.js';
import type { LinkSettings } from '../link/types.js';
import { Tap } from '../tap/tap.js';
import { CommandTable, DEFAULT_MAX_COMMAND_NAMES } from '../tap/command-table.js';
import { addCounters, copyCounters, newCounters } from '../tap/counters.js';
import { PendingBudget } from '../tap/pending-budget.js';
import { LiveSet } from './live-set.js';
import type { ConnectionInfo, Counters, StatsSnapshot, TapEvent } from './types.js';

export interface StatsCollectorOptions {
  /** Distinct command names kept before the rest count as OTHER. @default 1000 */
  maxCommandNames?: number;
  /** Monotonic clock for open events. @default realClock */
  clock?: Clock;
  /** Wall clock for ConnectionInfo times. @default Date.now */
  wallClockMs?: () => number;
  /** Unfinished requests one connection's tap may hold before it stops timing. @default 65536 */
  maxPendingPerConnection?: number;
  /** Unfinished requests all taps together may hold. @default 262144 */
  maxPendingTotal?: number;
}

const SHAPE = {
  maxCommandNames: wholeNumber(0).optional(),
  clock: withMethods<Clock>(['nowNs'], 'a Clock (an object with nowNs())').optional(),
  wallClockMs: hook<() => number>('a function returning milliseconds since the epoch').optional(),
  maxPendingPerConnection: wholeNumber(1).optional(),
  maxPendingTotal: wholeNumber(1).optional(),
} satisfies Record<keyof StatsCollectorOptions, z.ZodType>;

/**
 * StatsCollector is exported: a cap of -1 or NaN (every request untimed, or none ever), or a key it
 * does not take, made a collector without a word. A ConfigError names it (`StatsCollector.maxPendingTotal`).
 */
const STATS_COLLECTOR_OPTIONS = z.strictObject(SHAPE, {
  error: (issue) =>
    issue.code === 'unrecognized_keys' ? `a key of StatsCollector's options: ${Object.keys(SHAPE).join(', ')}` : "an object of StatsCollector's options",
});

export interface OpenConnectionOptions {
  /** Client address as the proxy saw it, or how to learn it when first asked (TapOptions.client). */
  client: string | (() => string);
  /** Connection id; the collector numbers connections 1, 2, ... when absent. */
  id?: number;
  /** Receives this connection's TapEvents. @default none */
  onEvent?: (event: TapEvent) => void;
  /** Keyed hash of the first key, for command events. @default none */
  keyHash?: (key: Buffer) => string;
  /** Collect argument sizes for command events. @default false */
  argSizes?: boolean;
  /** Clock for this connection's open event. @default the collector's */
  clock?: Clock;
}

export class StatsCollector {
  readonly commands: CommandTable;
  private readonly live = new LiveSet<Tap>();
  private closedTotals: Counters = newCounters();
  private totalConnections = 0;
  private nextId = 1;
  private readonly clock: Clock;
  private readonly wallClockMs: () => number;
  private readonly budget: PendingBudget;
  private closedDegraded = 0;

  constructor(options: StatsCollectorOptions = {}) {
    parseWith(STATS_COLLECTOR_OPTIONS, options, keyPath('StatsCollector'));
    this.budget = new PendingBudget(options.maxPendingPerConnection, options.maxPendingTotal);
    this.commands = new CommandTable(options.maxCommandNames ?? DEFAULT_MAX_COMMAND_NAMES);
    this.clock = options.clock ?? realClock;
    this.wallClockMs = options.wallClockMs ?? Date.now;
  }

  openConnection(options: OpenConnectionOptions): Tap {
    const id = options.id ?? this.nextId;
    this.nextId = Math.max(this.nextId, id) + 1;
    const tap = new Tap({
      id,
      client: options.client,
      commands: this.commands,
      onEvent: options.onEvent,
      keyHash: options.keyHash,
      argSizes: options.argSizes,
      openNs: (options.clock ?? this.clock).nowNs(),
      wallClockMs: this.wallClockMs,
      budget: this.budget,
      onClosed: (t) => this.closed(t),
    });
    this.live.add(tap);
    this.totalConnections++;
    return tap;
  }

  /** Totals (live + closed), per-command stats, connection counts and the link, as plain JSON. */
  snapshot(link: LinkSettings): StatsSnapshot {
    const totals = copyCounters(this.closedTotals);
    for (const tap of this.live) addCounters(totals, tap.liveCounters);
    return {
      totals,
      commands: this.commands.snapshot(),
      connections: { active: this.live.size, total: this.totalConnections },
      link: { ...link },
      tap: {
        pendingRequests: this.budget.used,
        maxPendingPerConnection: this.budget.perConnection,
        maxPendingTotal: this.budget.total,
        degradedConnections: this.closedDegraded + [...this.live].filter((t) => t.degraded).length,
      },
    };
  }

  /** Live connections, oldest first. */
  connectionsInfo(): ConnectionInfo[] {
    return [...this.live].map((tap) => tap.info());
  }

  /**
   * Zeroes counters and histograms. Live connections stay (and keep their state: requests in
   * flight finish into the new period, counted there); connections.total restarts from the live count.
   */
  reset(): void {
    this.closedTotals = newCounters();
    this.closedDegraded = 0;
    // The table first: a tap counts its requests in flight into it again.
    this.commands.reset();
    for (const tap of this.live) tap.resetCounters();
    this.totalConnections = this.live.size;
  }

  private closed(tap: Tap): void {
    if (!this.live.delete(tap)) return;
    addCounters(this.closedTotals, tap.liveCounters);
    if (tap.degraded) this.closedDegraded++;
  }
}

/** The snapshot of a proxy running without the tap: only the link and connection counts. */
export function emptySnapshot(link: LinkSettings): StatsSnapshot {
  return { totals: newCounters(), commands: {}, connections: { active: 0, total: 0 }, link };
}
