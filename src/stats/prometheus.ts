/**
 * A StatsSnapshot in the Prometheus text exposition format (version 0.0.4): what GET /metrics
 * serves. Pure: snapshot in, text out. Every family has HELP and TYPE lines; label values are
 * escaped (backslash, double quote, newline) so a command name can never break the output.
 *
 * Names follow Prometheus' conventions so `promtool check metrics` passes clean: base units
 * (seconds, bytes) in the name, `_total` only on counters, latency as a summary in seconds. The
 * snapshot keeps integer microseconds; the conversion happens here, at the edge, and only here.
 */
import { compareDepthBuckets } from '../tap/counters.js';
import type { SelfQuantiles } from './self-report.js';
import { tlsFamilies } from './tls-metrics.js';
import { lossFamilies } from './loss-metrics.js';
import { timelineFamilies } from './timeline-metrics.js';
import { nodeFamilies } from './node-metrics.js';
import { sentinelFamilies } from './sentinel-metrics.js';
import type { LatencySummary, StatsSnapshot } from './types.js';

export type MetricType = 'counter' | 'gauge' | 'summary' | 'untyped';

export interface MetricSample {
  labels?: Record<string, string>;
  value: number;
  /** Appended to the family name (`_sum`, `_count` of a summary). */
  suffix?: string;
}

/** One metric family; `extra` families given by the caller are rendered the same way. */
export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: MetricSample[];
}

const PREFIX = 'redis_rtt_';
const US_PER_SECOND = 1e6;
const BITS_PER_BYTE = 8;
const QUANTILES: readonly [string, keyof LatencySummary][] = [
  ['0.5', 'p50'],
  ['0.9', 'p90'],
  ['0.99', 'p99'],
  ['0.999', 'p999'],
  ['1', 'max'],
];

export function renderPrometheus(snapshot: StatsSnapshot, extra: readonly MetricFamily[] = []): string {
  const families = [
    ...snapshotFamilies(snapshot),
    ...selfFamilies(snapshot),
    ...tlsFamilies(snapshot),
    ...lossFamilies(snapshot),
    ...timelineFamilies(snapshot),
    ...nodeFamilies(snapshot),
    ...sentinelFamilies(snapshot),
    ...extra,
  ];
  return families.map(renderFamily).join('');
}

/** The families a snapshot turns into (exported for tests and for callers that add their own). */
export function snapshotFamilies(s: StatsSnapshot): MetricFamily[] {
  const t = s.totals;
  const commands = Object.entries(s.commands);
  const counter = (name: string, help: string, value: number): MetricFamily => ({ name: PREFIX + name, help, type: 'counter', samples: [{ value }] });
  const gauge = (name: string, help: string, value: number): MetricFamily => ({ name: PREFIX + name, help, type: 'gauge', samples: [{ value }] });
  const latency: MetricSample[] = [];
  for (const [command, stats] of commands) {
    for (const [kind, summary] of [['server', stats.serverUs], ['client', stats.clientUs]] as const) {
      // No observations: quantiles are NaN (as Prometheus client libraries write them), not 0.
      for (const [quantile, field] of QUANTILES) {
        latency.push({ labels: { command, kind, quantile }, value: summary.count === 0 ? Number.NaN : summary[field] / US_PER_SECOND });
      }
      latency.push({ labels: { command, kind }, value: summary.sum / US_PER_SECOND, suffix: '_sum' });
      latency.push({ labels: { command, kind }, value: summary.count, suffix: '_count' });
    }
  }
  // Without the tap nothing below is measured: left out, as an optional family is, not exported as 0.
  const counted: MetricFamily[] = s.countsOff ? [] : [
    {
      name: `${PREFIX}bytes_total`,
      help: 'Bytes forwarded, by direction (up: client to Redis, down: Redis to client).',
      type: 'counter',
      samples: [{ labels: { direction: 'up' }, value: t.bytesUp }, { labels: { direction: 'down' }, value: t.bytesDown }],
    },
    {
      name: `${PREFIX}chunks_total`,
      help: 'Socket reads forwarded, by direction.',
      type: 'counter',
      samples: [{ labels: { direction: 'up' }, value: t.chunksUp }, { labels: { direction: 'down' }, value: t.chunksDown }],
    },
    {
      name: `${PREFIX}commands_total`,
      help: 'Requests seen from clients, by command.',
      type: 'counter',
      samples: commands.map(([command, c]) => ({ labels: { command }, value: c.count })),
    },
    {
      name: `${PREFIX}errors_total`,
      help: 'Error replies, by command.',
      type: 'counter',
      samples: commands.map(([command, c]) => ({ labels: { command }, value: c.errors })),
    },
    {
      name: `${PREFIX}error_replies_total`,
      help: 'Error replies, by the first word of the error.',
      type: 'counter',
      samples: Object.entries(t.errorsByPrefix).map(([prefix, value]) => ({ labels: { prefix }, value })),
    },
    counter('replies_total', 'Reply frames matched to a request.', t.replies),
    counter('pushes_total', 'Server frames that answer no request (pushes, pub/sub messages, MONITOR lines).', t.pushes),
    counter('round_trips_total', 'Times a connection went from nothing outstanding to at least one request outstanding.', t.roundTrips),
    counter('flights_total', 'Bursts of requests, each started by the first request after reply bytes reached the client.', t.flights),
    {
      name: `${PREFIX}round_trips_by_depth_total`,
      help: 'Round trips by the number of requests they carried (power-of-two buckets).',
      type: 'counter',
      samples: Object.keys(t.depthHistogram)
        .sort(compareDepthBuckets)
        .map((depth) => ({ labels: { depth }, value: t.depthHistogram[depth] ?? 0 })),
    },
    counter('blocking_commands_total', 'Blocking commands seen (BLPOP, XREAD BLOCK, WAIT, ...).', t.blockingCommands),
    counter('unparsed_bytes_total', 'Bytes the framers could not parse (forwarded all the same).', t.unparsedBytes),
    gauge('max_depth', 'Most requests outstanding at once on one connection.', t.maxDepth),
  ];
  return [
    ...counted,
    gauge('connections_active', 'Client connections open now.', s.connections.active),
    counter('connections_total', 'Client connections accepted since start or the last reset.', s.connections.total),
    ...(s.connections.refused === undefined
      ? []
      : [counter('connections_refused_total', 'Clients closed at once at --max-connections since start or the last reset.', s.connections.refused)]),
    gauge('link_up_delay_seconds', 'One-way delay client to Redis, seconds.', s.link.upUs / US_PER_SECOND),
    gauge('link_down_delay_seconds', 'One-way delay Redis to client, seconds.', s.link.downUs / US_PER_SECOND),
    gauge('link_jitter_seconds', 'Jitter scale per direction, seconds.', s.link.jitterUs / US_PER_SECOND),
    gauge('link_bandwidth_bytes_per_second', 'Per-direction rate limit in bytes per second (0: unlimited).', s.link.bandwidthBps / BITS_PER_BYTE),
    {
      name: `${PREFIX}link_jitter_dist`,
      help: 'Jitter distribution in use (the label carries it; the value is always 1).',
      type: 'gauge',
      samples: [{ labels: { dist: s.link.jitterDist }, value: 1 }],
    },
    ...(s.countsOff
      ? []
      : [
          {
            name: `${PREFIX}command_latency_seconds`,
            help: 'Latency per command, seconds: kind="server" is sent to Redis -> first reply byte back, kind="client" is request at the proxy -> reply delivered to the client.',
            type: 'summary' as const,
            samples: latency,
          },
        ]),
  ];
}

const SELF_QUANTILES: readonly [string, 'p50' | 'p90' | 'p99' | 'max'][] = [
  ['0.5', 'p50'],
  ['0.9', 'p90'],
  ['0.99', 'p99'],
  ['1', 'max'],
];

/** The proxy's own tail (`self` in /stats), as summaries in seconds; none without it. */
export function selfFamilies(s: StatsSnapshot): MetricFamily[] {
  const self = s.self;
  if (self === undefined) return [];
  const summary = (name: string, help: string, parts: [Record<string, string> | undefined, SelfQuantiles][]): MetricFamily => {
    const samples: MetricSample[] = [];
    for (const [labels, q] of parts) {
      for (const [quantile, field] of SELF_QUANTILES) {
        samples.push({ labels: { ...labels, quantile }, value: q.count === 0 ? Number.NaN : q[field] / US_PER_SECOND });
      }
      samples.push({ labels, value: q.sum / US_PER_SECOND, suffix: '_sum' });
      samples.push({ labels, value: q.count, suffix: '_count' });
    }
    return { name: PREFIX + name, help, type: 'summary', samples };
  };
  const byDir = self.lateUsByDirection;
  return [
    summary('self_lateness_seconds', "The proxy's own lateness: each scheduled delivery's write time minus its due time.", [[undefined, self.lateUs]]),
    summary('self_lateness_by_direction_seconds', 'Delivery lateness by direction (up: to Redis, down: to the client).', [
      [{ direction: 'up' }, byDir.up],
      [{ direction: 'down' }, byDir.down],
    ]),
    summary(
      'self_added_seconds',
      'Per delivered chunk: write time minus (estimated arrival + configured delay); what the proxy adds to what a client sees.',
      [[undefined, self.addedUs]],
    ),
    summary(
      'self_round_trip_added_seconds',
      "Per reply chunk: its added time plus that of the connection's last request chunk; the proxy's own share of a round trip.",
      [[undefined, self.roundTripAddedUs]],
    ),
    summary('self_arrival_lag_seconds', 'Per read: time since the first read of the same event-loop turn.', [[undefined, self.arrivalLagUs]]),
    summary('self_event_loop_delay_seconds', 'Event-loop delay: how late a timer runs, sampled every 50 ms while connections are open.', [[undefined, self.eventLoopDelayUs]]),
    summary('self_gc_pause_seconds', 'Garbage-collection pauses while connections are open.', [[undefined, self.gcPauseUs]]),
  ];
}

/** Families given by the caller alone (several proxies' snapshots merged under a `proxy` label). */
export function renderFamilies(families: readonly MetricFamily[]): string {
  return families.map(renderFamily).join('');
}

function renderFamily(f: MetricFamily): string {
  let out = `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
  for (const s of f.samples) out += `${f.name}${s.suffix ?? ''}${renderLabels(s.labels)} ${formatValue(s.value)}\n`;
  return out;
}

function renderLabels(labels: Record<string, string> | undefined): string {
  if (labels === undefined) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}
