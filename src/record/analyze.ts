/**
 * `redis-rtt analyze`: a recorded session in, plain-JSON findings out. Pure: no I/O, no clock.
 *
 * Per connection (usage.ts): commands, round trips, flights, depth, and where the time went:
 *   span = lead (open -> first request) + wait + think + tail (last reply -> close)
 *   wait  = sum over round trips of first request's arrival -> last reply delivered (the client waiting)
 *   think = sum of gaps between a round trip's last reply and the next round trip's first request
 *   server = sum over round trips of first request written to Redis -> last reply's first byte back
 * Then the what-if projections (projection.ts), the opportunities (opportunities.ts) and the commands that
 * cost the most waiting (a round trip's wait is shared equally among the commands it carried).
 */
import { projectSession, type SessionProjection } from './projection.js';
import { roundTripLossCost } from '../link/loss-cost.js';
import { setupAdvice, summarizeSetup, type SetupSummary } from './setup.js';
import { findOpportunities, ms, type Opportunity } from './opportunities.js';
import { buildTimelines, linkRttUs } from './timeline.js';
import { topCommands, type TopCommand } from './top-commands.js';
import { countRedirects, spokeToCluster, summarizeNodes, type NodeSummary, type Redirects } from './nodes.js';
import type { Trace } from './trace-reader.js';
import { fmtUsSetting } from '../format.js';
import type { KeyMode, TraceLink, TraceTruncation } from './trace-format.js';
import { sumUsage, summarizeConnection, type ConnectionSummary, type Totals } from './usage.js';

export type { TopCommand } from './top-commands.js';
export type { NodeSummary, Redirects } from './nodes.js';
export type { ConnectionSummary, Totals } from './usage.js';

export interface AnalyzeOptions {
  /** RTTs to project to, microseconds. @default [200, 1200, 85000] */
  rttsUs?: readonly number[];
  /** Shortest run reported as an opportunity. @default 3 */
  minRun?: number;
  /** Longest think gap inside a run. @default 100000 (100 ms) */
  maxGapUs?: number;
  /** Commands listed by time waited. @default 10 */
  top?: number;
  /** Charge one RTT of set-up per connection opened during the recording. @default true */
  handshake?: boolean;
  /** Chain round trips across connections (projection.ts). @default true for a cluster trace, else false */
  chainConnections?: boolean;
  /** Segment loss each way to project to, in [0, 1) (the link model's). @default 0 */
  loss?: number;
}

/** How much higher chaining must put the largest RTT's projection before analyze says so (percent). */
const CHAIN_HINT_PCT = 10;

export const DEFAULT_ANALYZE = { rttsUs: [200, 1200, 85_000], minRun: 3, maxGapUs: 100_000, top: 10, handshake: true };

export interface ProjectionRow {
  rttUs: number;
  wallMs: number;
  roundTrips: number;
  /** Sum of the projected round-trip durations over all connections. */
  waitMs: number;
  /** Connection set-up at this RTT: TCP / TLS handshakes plus the set-up commands' round trips (setup.ts). */
  setupMs: number;
  /** setupMs as a share of the time waited (round trips + handshakes), percent. */
  setupSharePct: number;
  /**
   * With `loss`: what the loss model predicts a round trip costs at this RTT (one segment each way;
   * link/loss-cost.ts). wallMs and waitMs already include the mean on every replied round trip.
   */
  loss?: { meanMs: number; p99Ms: number; p999Ms: number; slowSharePct: number };
}

export interface SetupAnalysis extends SetupSummary {
  /** Said when set-up is a large share of the time at the largest RTT projected. */
  advice?: string;
}

export interface Analysis {
  trace: {
    version: number;
    startedAt: string;
    keys: KeyMode;
    link: TraceLink;
    recordedRttUs: number;
    linkChanges: number;
    /**
     * When the link changed while recording (PUT /link, --rtt-series...): the RTTs it had, the header's
     * included, distinct and ascending; the session was not recorded at recordedRttUs alone.
     */
    linkRttsUs?: number[];
    complete: boolean;
    truncation?: TraceTruncation;
    warnings: string[];
  };
  totals: Totals;
  connections: ConnectionSummary[];
  /** Cluster traces: round trips and commands per node (empty for a single-node trace). */
  nodes: NodeSummary[];
  /** MOVED / ASK replies: each cost the client one more round trip. */
  redirects: Redirects;
  /**
   * Whether the projections chained round trips across connections (each waits for whatever finished
   * before it on any connection: projection.ts chainConnections), not only a connection's open.
   */
  chainedConnections: boolean;
  /**
   * Several connections, not chained, and chaining them would change the projection at the largest RTT
   * by CHAIN_HINT_PCT or more: that projection, said as a note, since a trace cannot tell one application
   * using its connections in turn (chained is right) from a pool serving concurrent tasks (apart is).
   */
  chainedAlternative?: { rttUs: number; wallMs: number; differencePct: number };
  /** The session as recorded, for comparison with the projections. */
  recorded: ProjectionRow;
  projections: ProjectionRow[];
  /** Connection set-up: connections opened, handshake and set-up-command round trips. */
  setup: SetupAnalysis;
  opportunities: Opportunity[];
  topCommands: TopCommand[];
}

export function analyzeTrace(trace: Trace, options: AnalyzeOptions = {}): Analysis {
  const o = {
    // Once each: --rtt 1ms,1000us printed the same projection (and opportunity column) twice.
    rttsUs: [...new Set(options.rttsUs ?? DEFAULT_ANALYZE.rttsUs)],
    minRun: options.minRun ?? DEFAULT_ANALYZE.minRun,
    maxGapUs: options.maxGapUs ?? DEFAULT_ANALYZE.maxGapUs,
    top: options.top ?? DEFAULT_ANALYZE.top,
    handshake: options.handshake ?? DEFAULT_ANALYZE.handshake,
  };
  const timelines = buildTimelines(trace.events, trace.header.link, trace.links, trace.nodeLinks);
  const chainConnections = options.chainConnections ?? timelines.some((t) => t.node !== undefined);
  const connections = timelines.map(summarizeConnection);
  const totals = sumUsage(connections, timelines);
  const recordedHandshake = trace.header.link.handshake;
  const row = (p: SessionProjection): Omit<ProjectionRow, 'rttUs' | 'wallMs' | 'roundTrips' | 'waitMs'> => {
    const waitedUs = p.waitUs + p.handshakeUs;
    return { setupMs: ms(p.setupUs), setupSharePct: waitedUs > 0 ? Math.round((1000 * p.setupUs) / waitedUs) / 10 : 0 };
  };
  const lossRate = options.loss ?? 0;
  const project = (rttUs: number, chain = chainConnections): ProjectionRow => {
    const cost = lossRate > 0 ? roundTripLossCost({ rttUs, lossUp: lossRate, lossDown: lossRate }) : undefined;
    const p = projectSession(timelines, rttUs, { handshake: o.handshake, recordedHandshake, chainConnections: chain, roundTripExtraUs: cost?.meanUs });
    const out: ProjectionRow = { rttUs, wallMs: ms(p.wallUs), roundTrips: p.roundTrips, waitMs: ms(p.waitUs), ...row(p) };
    if (cost) out.loss = { meanMs: ms(cost.meanUs), p99Ms: ms(cost.p99Us), p999Ms: ms(cost.p999Us), slowSharePct: Math.round(cost.slowShare * 10_000) / 100 };
    return out;
  };
  const chainedAt = (rttUs: number): Analysis['chainedAlternative'] => {
    if (timelines.length < 2 || !Number.isFinite(rttUs)) return undefined;
    const apart = projections.find((p) => p.rttUs === rttUs)!;
    const chained = project(rttUs, true);
    const differencePct = apart.wallMs > 0 ? Math.round((1000 * (chained.wallMs - apart.wallMs)) / apart.wallMs) / 10 : 0;
    return differencePct >= CHAIN_HINT_PCT ? { rttUs, wallMs: chained.wallMs, differencePct } : undefined;
  };
  const recordedRttUs = linkRttUs(trace.header.link);
  // Set-up as it was paid while recording: TLS always, TCP when the recording proxy charged it.
  const asRecorded = row(projectSession(timelines, recordedRttUs, { handshake: o.handshake && recordedHandshake, recordedHandshake, asRecorded: true }));
  const projections = o.rttsUs.map((rttUs) => project(rttUs));
  const setup: SetupAnalysis = summarizeSetup(timelines, o.handshake);
  const chainedAlternative = options.chainConnections === undefined && !chainConnections ? chainedAt(Math.max(...o.rttsUs)) : undefined;
  const advice = setupAdvice(setup, projections);
  if (advice !== undefined) setup.advice = advice;
  const analysis: Analysis = {
    trace: {
      version: trace.header.version,
      startedAt: trace.header.startedAt,
      keys: trace.header.keys,
      link: trace.header.link,
      recordedRttUs: linkRttUs(trace.header.link),
      linkChanges: trace.links.length,
      complete: trace.end !== undefined && trace.truncation === undefined,
      warnings: [
        ...trace.warnings,
        ...movingLinkWarning(trace.header.linkMoves, linkRttUs(trace.header.link)),
        // A cluster node's own link (--node-link loss=...) is in its nodelink lines alone.
        ...lossyLinkWarning([trace.header.link, ...[...trace.links, ...(trace.nodeLinks ?? [])].map((c) => c.link)]),
        ...emptyTraceWarning(totals.connections, totals.commands),
      ],
    },
    totals,
    connections,
    nodes: summarizeNodes(timelines),
    redirects: countRedirects(timelines),
    chainedConnections: chainConnections,
    ...(chainedAlternative !== undefined ? { chainedAlternative } : {}),
    recorded: { rttUs: recordedRttUs, wallMs: totals.wallMs, roundTrips: totals.roundTrips, waitMs: totals.waitMs, ...asRecorded },
    projections,
    setup,
    opportunities: findOpportunities(timelines, { minRun: o.minRun, maxGapUs: o.maxGapUs, rttsUs: o.rttsUs, cluster: spokeToCluster(timelines) }),
    topCommands: topCommands(timelines, o.top),
  };
  if (trace.truncation) analysis.trace.truncation = trace.truncation;
  const linkRtts = [...new Set([trace.header.link, ...trace.links.map((c) => c.link)].map(linkRttUs))].sort((x, y) => x - y);
  if (linkRtts.length > 1) analysis.trace.linkRttsUs = linkRtts;
  return analysis;
}

/**
 * A trace with no command: every table below is empty and every projection 0, which read as a session that cost
 * nothing. Said once, with the likely cause.
 */
function emptyTraceWarning(connections: number, commands: number): string[] {
  if (commands > 0) return [];
  return connections === 0
    ? ['the trace holds no connection: no client connected while recording (point the application at the proxy\'s --listen address)']
    : [`the trace holds no command: ${connections} connection${connections === 1 ? '' : 's'} opened and sent nothing the proxy framed`];
}

/**
 * --rtt-wave and --rtt-series move the link per chunk and write no link line, and a schedule's ramp writes
 * only its target at its start: every round trip is taken to have paid the link line in effect (the header's
 * base link without one), so the what-if adds the target RTT on top of what the moves added.
 */
function movingLinkWarning(moves: readonly string[] | undefined, baseRttUs: number): string[] {
  if (moves === undefined || moves.length === 0) return [];
  return [
    `the link moved with ${moves.join(' and ')} while recording, and the trace holds the links set, not those moves ` +
      `(RTT ${baseRttUs === 0 ? '0' : fmtUsSetting(baseRttUs)} at its start): each round trip is priced as if it paid the one set, so ` +
      'the what-if counts what the link added on top of it again; record on a fixed link (--rtt, --preset, PUT /link) to project',
  ];
}

/**
 * A recording link that lost segments (--loss): its round trips include the resends they waited for (a
 * 200 ms RTO each), and the what-if keeps them at every RTT, where the reader would expect a clean link.
 */
function lossyLinkWarning(links: readonly TraceLink[]): string[] {
  const pct = (p: number): string => `${Number((100 * p).toFixed(3))}%`;
  const lossy = links.find((l) => l.lossUp > 0 || l.lossDown > 0);
  if (lossy === undefined) return [];
  return [
    `the link lost segments while recording (${pct(lossy.lossUp)} up, ${pct(lossy.lossDown)} down): the round trips keep ` +
      'the resends they waited for at every RTT projected (--loss adds its own on top); record on a link without loss to project',
  ];
}
