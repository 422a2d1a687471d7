/**
 * The dashboard's "last 10 s", made from the counters and histograms the proxy keeps anyway: a
 * reading every tick, kept while it is inside the window, and the figures as the newest reading
 * minus the oldest. Nothing is recorded for it on the data path. Histograms are kept once a
 * second (a copy per command), counters every tick.
 */
import { LatencyHistogram } from '../numbers/histogram.js';
import { copyCounters, newCounters } from '../tap/counters.js';
import type { Counters } from '../stats/types.js';
import type { Rates, WindowCommand } from './types.js';

export const WINDOW_NS = 10e9;
const LATENCY_STEP_NS = 1e9;
const MAX_COMMANDS = 20;

interface CounterReading {
  atNs: number;
  totals: Counters;
  /** Each node's counters, by who it is (its listener). */
  nodes: Map<string, Counters>;
}

interface LatencyReading {
  atNs: number;
  byCommand: Map<string, LatencyHistogram>;
}

export interface WindowFigures {
  windowMs: number;
  rates: Rates;
  nodeRates: Rates[];
  commands: WindowCommand[];
  /** The window's histogram per command, busiest first (for the chart). */
  latency: { name: string; histogram: LatencyHistogram }[];
}

export class StatsWindow {
  private counters: CounterReading[] = [];
  private latency: LatencyReading[] = [];

  constructor(private readonly windowNs = WINDOW_NS) {}

  /**
   * Takes this tick's reading and answers the window's figures. `nodeKeys` name the nodes (their
   * listeners) in the order of `nodes`: a node's rates are its counters less its own earlier
   * reading, or less zero when it joined inside the window (its counters started at zero then).
   * By place, a node that joined or left made a row one node less another; restarting the window
   * from zero on it made the totals' rates every count since start over a quarter second.
   */
  add(
    atNs: number,
    totals: Counters,
    nodes: readonly Counters[],
    commandLatency: Iterable<readonly [string, LatencyHistogram]>,
    nodeKeys: readonly string[] = nodes.map((_, i) => String(i)),
  ): WindowFigures {
    const last = this.counters[this.counters.length - 1];
    // A reset nobody told the window of (resetStats() from the library) zeroed the counters: the
    // window starts again from zero at the last reading, so what came since counts. Any counter
    // that fell tells: commands alone did not when more came after the reset than before it, and
    // the bytes of a few large SETs then went negative.
    if (last && fell(totals, last.totals)) this.restartAt(last.atNs);
    const keyOf = (i: number): string => nodeKeys[i] ?? String(i);
    this.counters.push({ atNs, totals: copyCounters(totals), nodes: new Map(nodes.map((n, i) => [keyOf(i), copyCounters(n)])) });
    dropOld(this.counters, atNs - this.windowNs);

    const live = new Map<string, LatencyHistogram>();
    for (const [name, h] of commandLatency) if (h.count > 0) live.set(name, h);
    const now = cloneAll(live);
    const lastLatency = this.latency[this.latency.length - 1];
    if (!lastLatency || atNs - lastLatency.atNs >= LATENCY_STEP_NS) this.latency.push({ atNs, byCommand: cloneAll(now) });
    dropOld(this.latency, atNs - this.windowNs);

    let latency = windowHistograms(now, this.latency[0]!.byCommand);
    if (latency === undefined) {
      // A command's histogram holds less than it did with no reset: in cluster and Sentinel mode a
      // node that left took its histograms along (the totals keep its counts, so no counter fell).
      // Less the old reading, the window showed every command since start as answered in it; the
      // commands' window starts again here instead.
      this.latency = [{ atNs, byCommand: cloneAll(live) }];
      latency = [];
    }
    const base = this.counters[0]!;
    const seconds = (atNs - base.atNs) / 1e9;
    const latencySeconds = (atNs - this.latency[0]!.atNs) / 1e9;
    return {
      windowMs: Math.round(seconds * 1000),
      rates: rates(totals, base.totals, seconds),
      nodeRates: nodes.map((n, i) => rates(n, base.nodes.get(keyOf(i)) ?? ZERO, seconds)),
      commands: latency.slice(0, MAX_COMMANDS).map(({ name, histogram: h }) => ({
        name,
        count: h.count,
        perSecond: latencySeconds > 0 ? round(h.count / latencySeconds) : 0,
        p50Us: h.valueAtPercentile(50),
        p99Us: h.valueAtPercentile(99),
        maxUs: h.valueAtPercentile(100),
      })),
      latency,
    };
  }

  /**
   * The counters were reset now (POST /reset): the window counts from zero from here, its length
   * too, whatever the counters reach before the next reading. Nothing while no stream reads.
   */
  reset(atNs: number): void {
    if (this.counters.length > 0) this.restartAt(atNs);
  }

  /** No node in the base: each is read less zero, as its counters were reset too. */
  private restartAt(atNs: number): void {
    this.counters = [{ atNs, totals: newCounters(), nodes: new Map() }];
    this.latency = [{ atNs, byCommand: new Map() }];
  }

  /** Forgets every reading (the last page left). */
  clear(): void {
    this.counters = [];
    this.latency = [];
  }
}

/** Drops readings while the next one is still at or before the window's start: the oldest left is the base. */
function dropOld(readings: { atNs: number }[], startNs: number): void {
  let n = 0;
  while (n + 1 < readings.length && readings[n + 1]!.atNs <= startNs) n++;
  if (n > 0) readings.splice(0, n);
}

function cloneAll(m: ReadonlyMap<string, LatencyHistogram>): Map<string, LatencyHistogram> {
  return new Map([...m].map(([name, h]) => [name, h.clone()]));
}

/**
 * `now` less `base` per command (each `now` entry is a copy, changed in place), busiest first, empty
 * ones left out; undefined when a command's histogram lost some of what `base` holds (subtracting
 * then fails, possibly halfway).
 */
function windowHistograms(now: Map<string, LatencyHistogram>, base: ReadonlyMap<string, LatencyHistogram>): WindowFigures['latency'] | undefined {
  const out: WindowFigures['latency'] = [];
  for (const [name, h] of now) {
    const before = base.get(name);
    if (before) {
      if (before.count > h.count) return undefined;
      try {
        h.subtract(before);
      } catch {
        return undefined;
      }
    }
    if (h.count > 0) out.push({ name, histogram: h });
  }
  return out.sort((a, b) => b.histogram.count - a.histogram.count || (a.name < b.name ? -1 : 1));
}

/**
 * A reset came between the readings: one of the counters that only a reset lowers fell. Replies,
 * error replies and bytes down are not among them: a connection that closes with replies still held
 * (by the down delay, a toxic) takes those back (docs/counters.md), and taken for a reset, that
 * made the next rates every count since start over one tick.
 */
function fell(now: Counters, before: Counters): boolean {
  return ONLY_RESET_LOWERS.some((k) => now[k] < before[k]);
}

const ONLY_RESET_LOWERS = ['commands', 'pushes', 'roundTrips', 'flights', 'bytesUp', 'chunksUp', 'chunksDown'] as const;
const ZERO: Counters = newCounters();

function rates(now: Counters, base: Counters, seconds: number): Rates {
  // Never below zero: a count taken back at a close is no traffic the other way.
  const per = (k: keyof Rates): number => (seconds > 0 ? round(Math.max(0, now[k] - base[k]) / seconds) : 0);
  return {
    commands: per('commands'),
    replies: per('replies'),
    pushes: per('pushes'),
    errorReplies: per('errorReplies'),
    roundTrips: per('roundTrips'),
    bytesUp: per('bytesUp'),
    bytesDown: per('bytesDown'),
  };
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}
