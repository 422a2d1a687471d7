import type { SelfReport } from './self-report.js';
/**
 * Plain-JSON shapes of what the proxy counts. GET /stats returns a StatsSnapshot; every field is
 * defined in docs/counters.md. The per-connection shapes belong to the tap (tap/counter-types.ts)
 * and the latency summary to the histogram (numbers/histogram.ts); they are re-exported here.
 */
import type { LinkSettings } from '../link/types.js';
import type { LossCounters } from '../link/loss-model.js';
import type { CommandStats, Counters } from '../tap/counter-types.js';
import type { TlsCounters } from '../tls/counters.js';
import type { PartitionReport, TimelineReport } from '../link/timeline-report.js';

export type { LatencySummary } from '../numbers/histogram.js';
export type {
  Counters,
  CommandStats,
  ConnectionInfo,
  CommandEvent,
  PushEvent,
  ConnectionEvent,
  TlsEvent,
  TapEvent,
} from '../tap/counter-types.js';

export interface StatsSnapshot {
  totals: Counters;
  commands: Record<string, CommandStats>;
  /** `refused`: clients closed at once at --max-connections since start or the last reset (present only with the cap). */
  connections: { active: number; total: number; refused?: number };
  link: LinkSettings;
  /** Each toxic's applications since it was added or the last reset (present when the proxy has toxics; src/toxics). */
  toxics?: { name: string; type: string; stream: string; applications: number }[];
  /** The tap's memory bound (absent without the tap). */
  tap?: TapHealth;
  /**
   * Present (true) when the proxy runs without the tap (--no-tap): `totals` and `commands` are zeros
   * nobody measured, so /metrics leaves their families out and the dashboard says the counts are off.
   */
  countsOff?: true;
  /** The proxy's own lateness, read lag, event-loop delay and GC pauses (a proxy's /stats). */
  self?: SelfReport;
  /** TLS on either side (with listenTls or upstreamTls): handshakes and TLS bytes on the wire; `totals` counts the plaintext. */
  tls?: TlsCounters;
  /** A link that changes over time (--rtt-wave, --link-schedule, --rtt-series): where it is now. */
  timeline?: TimelineReport;
  /** The last partition (present once one ran): whether it holds now, and what its end did. */
  partition?: PartitionReport;
  /** The loss model's counts per direction (present once the link has had loss since start; a reset zeroes them). */
  loss?: { up: LossCounters; down: LossCounters };
  /** Sentinel mode only (src/sentinel fills it): the primary, the sentinels' answers, failovers and rewrites. */
  sentinel?: SentinelBlock;
}

/** /stats `sentinel` (docs/sentinel.md#stats); /metrics renders it as the `redis_rtt_sentinel_*` families. */
export interface SentinelBlock {
  /** --sentinel-master. */
  master: string;
  /** The real address of the node the proxy's last reading named primary, or null. */
  primary: string | null;
  /** What each sentinel last said the primary is (real addresses). */
  answers: { sentinel: string; primary: string }[];
  /** The sentinels' latest answers name more than one primary. */
  disagree: boolean;
  /** Times a new disagreement was seen (and logged) since start or the last reset. */
  disagreements: number;
  /** Times the proxy's reading named another primary than the one before, since start or the last reset. */
  failovers: number;
  /** SENTINEL replies and events rewritten, by kind. */
  rewrites: Record<string, number>;
  /** SENTINEL replies that could not be parsed and went out unchanged. */
  unparsed: number;
}

/** Unfinished requests the taps hold, their bounds, and connections that hit them. */
export interface TapHealth {
  /** Requests held for timing now, all connections. */
  pendingRequests: number;
  maxPendingPerConnection: number;
  maxPendingTotal: number;
  /**
   * Connections whose tap gave up timing at a bound since start or the last reset (live and
   * closed): their later commands are counted but not timed, and not in a trace.
   */
  degradedConnections: number;
}
