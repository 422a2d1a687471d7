/**
 * What the dashboard reads from a proxy, and the event it sends a page four times a second
 * (`event: stats` on /events). Every field of DashboardEvent is described in docs/counters.md
 * ("The dashboard's event").
 */
import type { LatencyHistogram } from '../numbers/histogram.js';
import type { SelfQuantiles } from '../stats/self-report.js';
import type { NodeBlock } from '../stats/node-blocks.js';
import type { StatsSnapshot } from '../stats/types.js';
import type { ToxicSpec } from '../toxics/types.js';

/** A proxy as the dashboard sees it: read only, called on the dashboard's timer alone. */
export interface DashboardSource {
  /** GET /stats; a multi-node mode's has a block with `nodes` (see NodeBlock). */
  stats(): StatsSnapshot;
  /** Each command's clientUs histogram, live: read, never changed (the window clones them). */
  commandLatency(): Iterable<readonly [string, LatencyHistogram]>;
  /** The toxics with their attributes, when the endpoint has a toxics API. */
  toxics?(): ToxicSpec[];
  /** Whether the proxy runs, when it can be disabled (`redis-rtt server`'s): a disabled one's stats are its last. */
  enabled?(): boolean;
}

/** Per second, over the window. */
export interface Rates {
  commands: number;
  replies: number;
  pushes: number;
  errorReplies: number;
  roundTrips: number;
  bytesUp: number;
  bytesDown: number;
}

export interface WindowCommand {
  name: string;
  /** Answered in the window (latencies recorded). */
  count: number;
  perSecond: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

/** A node row: its stats block's fields (less counters) with its rates over the window. */
export type NodeRow = Record<string, unknown> & { connections: NodeBlock['connections']; rates: Rates };

export interface DashboardEvent {
  /** Wall clock (ms since the epoch) when the event was made. */
  atMs: number;
  /** Time the windowed figures cover: grows to 10 000 from when the first page connected. */
  windowMs: number;
  rates: Rates;
  /** Commands answered in the window, most first, at most 20. */
  commands: WindowCommand[];
  /** The window's latency by percentile (all commands, and the busiest three), an SVG; null before any. */
  chartSvg: string | null;
  connections: { active: number; total: number };
  /** The proxy's own lateness since start or the last reset (/stats `self`), when it has one. */
  self?: { addedUs: SelfQuantiles; roundTripAddedUs: SelfQuantiles; lateUs: SelfQuantiles };
  /** /stats `link` as it is (a field the link gains, loss for one, shows up here). */
  link: StatsSnapshot['link'];
  /** On a moving link, the delays that run now (/stats `timeline.delaysUs`): `link` is the settings under the wave or series. */
  linkNow?: { upUs: number; downUs: number };
  /** The last partition (/stats `partition`), once one ran. */
  partition?: StatsSnapshot['partition'];
  toxics: (ToxicSpec & { applications: number })[];
  /** One per node in a multi-node mode, in the stats block's order. */
  nodes?: NodeRow[];
  /** Present (true) without the tap (--no-tap, /stats `countsOff`): `rates` and `commands` measure nothing. */
  countsOff?: true;
  /** `redis-rtt server`'s proxies only: false while the proxy is disabled (the figures are its last). */
  enabled?: boolean;
}
