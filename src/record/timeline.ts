/**
 * Rebuilds each connection's timeline from a trace's events: its round trips (a period with at least one
 * request outstanding, as the tap numbered them), what each carried, and when it began and ended.
 * Pure: events in, timelines out. Times are microseconds since the trace started.
 */
import type { CommandEvent, PushEvent, TapEvent } from '../stats/types.js';
import type { LinkChange, NodeLinkChange, TraceLink } from './trace-format.js';

export interface RoundTrip {
  conn: number;
  /** The tap's round-trip number on this connection (1-based). */
  index: number;
  /** Requests in arrival order. */
  commands: CommandEvent[];
  /** First request's last byte reached the proxy. */
  startUs: number;
  /** Last reply's last byte written to the client (the last arrival when no reply came). */
  endUs: number;
  /** At least one reply reached the client: the client waited on the link. */
  replied: boolean;
  /** Bursts of requests: a new one starts when a request follows reply bytes sent to the client. */
  flights: number;
  /** First request written to Redis -> last reply's first byte back: Redis (and the local hop) at work. */
  serverUs: number;
  /** The link's configured RTT when this round trip started (its node's link in a cluster trace). */
  linkRttUs: number;
}

export interface ConnectionTimeline {
  conn: number;
  client?: string;
  /** Cluster traces: the real node and the listener its open line named. */
  node?: string;
  listen?: string;
  /** When the proxy accepted it (absent: opened before the recording started). */
  openUs?: number;
  closeUs?: number;
  /** The client's TLS handshake (recorded with --listen-tls): version, resumed, finished at. */
  tls?: { version: string; resumed: boolean; atUs: number };
  /** The link's RTT when it opened (set-up paid this on the recording link). */
  openLinkRttUs: number;
  /**
   * The part of the first round trip that was the recording proxy's TCP handshake (handshake: true),
   * not waiting on Redis: 0 when the client's first command came after it.
   */
  handshakeHoldUs: number;
  /** open, else the first event; close, else the last event. */
  startUs: number;
  endUs: number;
  roundTrips: RoundTrip[];
  /**
   * Requests that expected no reply while none was outstanding (CLIENT REPLY OFF or SKIP; the trace's
   * `rt` 0): commands the connection sent, in no round trip, never waited on.
   */
  noRoundTrip: CommandEvent[];
  pushes: PushEvent[];
}

/**
 * A round trip's time waiting on Redis: its span, less the recording proxy's TCP handshake hold inside a
 * connection's first one (set-up, not waiting). The one definition the connections, nodes and commands share.
 */
export function roundTripWaitUs(t: ConnectionTimeline, rt: RoundTrip): number {
  return rt.endUs - rt.startUs - (rt === t.roundTrips[0] ? t.handshakeHoldUs : 0);
}

export function linkRttUs(link: TraceLink): number {
  return link.upUs + link.downUs;
}

/**
 * Groups a trace's events by connection (ordered by start, then id) and rebuilds the round trips.
 * `nodeLinks` (cluster traces): a connection whose open line names a node pays that node's link.
 */
export function buildTimelines(
  events: readonly TapEvent[],
  initialLink: TraceLink,
  links: readonly LinkChange[] = [],
  nodeLinks: readonly NodeLinkChange[] = [],
): ConnectionTimeline[] {
  type Conn = { cmds: CommandEvent[]; pushes: PushEvent[]; open?: number; close?: number; client?: string; node?: string; listen?: string; tls?: ConnectionTimeline['tls'] };
  const byConn = new Map<number, Conn>();
  const get = (conn: number) => {
    let c = byConn.get(conn);
    if (!c) byConn.set(conn, (c = { cmds: [], pushes: [] }));
    return c;
  };
  for (const e of events) {
    const c = get(e.conn);
    if (e.type === 'command') c.cmds.push(e);
    else if (e.type === 'push') c.pushes.push(e);
    else if (e.type === 'open') {
      c.open = e.atUs;
      if (e.client !== undefined) c.client = e.client;
      if (e.node !== undefined) c.node = e.node;
      if (e.listen !== undefined) c.listen = e.listen;
    } else if (e.type === 'tls') c.tls = { version: e.version, resumed: e.resumed, atUs: e.atUs };
    else c.close = e.atUs;
  }
  const globalRttAt = linkLookup(initialLink, links);
  const perNode = new Map<string, (atUs: number) => number>();
  for (const node of new Set(nodeLinks.map((l) => l.node))) {
    const own = nodeLinks.filter((l) => l.node === node).sort((a, b) => a.atUs - b.atUs);
    // Before the node's first nodelink line (none should come before its connections), the base link.
    const lookup = linkLookup(initialLink, own);
    perNode.set(node, (atUs) => (atUs >= own[0]!.atUs ? lookup(atUs) : globalRttAt(atUs)));
  }
  const timelines: ConnectionTimeline[] = [];
  for (const [conn, c] of byConn) {
    const rttAt = (c.node !== undefined ? perNode.get(c.node) : undefined) ?? globalRttAt;
    // Events are emitted as replies are delivered; a request that never gets one (CLIENT REPLY OFF) can be
    // emitted early, so order by the tap's round-trip number, then arrival (stable for equal stamps).
    // Round trip 0 is none: grouped, a session's requests sent under CLIENT REPLY OFF read as one round
    // trip from the first to the last, its span counted as waiting.
    const noRoundTrip = c.cmds.filter((e) => e.roundTrip === 0);
    const cmds = c.cmds.filter((e) => e.roundTrip !== 0).map((e, i) => ({ e, i }));
    cmds.sort((a, b) => a.e.roundTrip - b.e.roundTrip || a.e.arrivedUs - b.e.arrivedUs || a.i - b.i);
    const roundTrips: RoundTrip[] = [];
    let group: CommandEvent[] = [];
    for (const { e } of cmds) {
      if (group.length > 0 && group[0]!.roundTrip !== e.roundTrip) {
        roundTrips.push(makeRoundTrip(group, rttAt));
        group = [];
      }
      group.push(e);
    }
    if (group.length > 0) roundTrips.push(makeRoundTrip(group, rttAt));
    let minUs = Infinity;
    let maxUs = -Infinity;
    const see = (us: number | undefined): void => {
      if (us === undefined) return;
      minUs = Math.min(minUs, us);
      maxUs = Math.max(maxUs, us);
    };
    for (const rt of roundTrips) {
      see(rt.startUs);
      see(rt.endUs);
    }
    for (const p of c.pushes) see(p.atUs);
    for (const e of noRoundTrip) see(e.arrivedUs);
    see(c.open);
    see(c.close);
    const startUs = c.open ?? minUs;
    const t: ConnectionTimeline = {
      conn,
      startUs,
      endUs: maxUs,
      roundTrips,
      noRoundTrip,
      pushes: c.pushes,
      openLinkRttUs: rttAt(startUs),
      handshakeHoldUs: 0,
    };
    if (c.tls !== undefined) t.tls = c.tls;
    if (c.client !== undefined) t.client = c.client;
    if (c.node !== undefined) t.node = c.node;
    if (c.listen !== undefined) t.listen = c.listen;
    if (c.open !== undefined) t.openUs = c.open;
    if (c.close !== undefined) t.closeUs = c.close;
    if (initialLink.handshake) t.handshakeHoldUs = handshakeHoldUs(t);
    timelines.push(t);
  }
  return timelines.sort((a, b) => a.startUs - b.startUs || a.conn - b.conn);
}

/**
 * The recording proxy charges a plaintext connection's TCP handshake by holding its first bytes until
 * one RTT after the open: a client that sent its first command sooner waited out the rest inside that
 * command's round trip, which is set-up, not a round trip's worth of waiting. (A TLS client's first
 * bytes are its handshake's, so the hold is in the TLS round trips, not in a command's.) The trace
 * shows it: the first request waited that much longer before reaching Redis than the connection's
 * later ones did; the open and the RTT bound it.
 */
function handshakeHoldUs(t: ConnectionTimeline): number {
  const [first, ...later] = t.roundTrips;
  if (t.openUs === undefined || t.tls !== undefined || first === undefined) return 0;
  const upWaitUs = (rt: RoundTrip): number => rt.commands[0]!.sentUs - rt.commands[0]!.arrivedUs;
  const usualUpUs = later.length > 0 ? Math.min(...later.slice(0, 100).map(upWaitUs)) : first.linkRttUs / 2;
  const heldUs = Math.max(0, upWaitUs(first) - usualUpUs);
  return Math.min(first.endUs - first.startUs, heldUs, Math.max(0, t.openUs + t.openLinkRttUs - first.startUs));
}

function makeRoundTrip(commands: CommandEvent[], rttAt: (atUs: number) => number): RoundTrip {
  const first = commands[0]!;
  let endUs = -Infinity;
  let lastArrival = -Infinity;
  let firstSent = Infinity;
  let lastFirstReply = -Infinity;
  const deliveries: number[] = [];
  for (const c of commands) {
    lastArrival = Math.max(lastArrival, c.arrivedUs);
    firstSent = Math.min(firstSent, c.sentUs);
    if (c.firstReplyUs !== undefined) lastFirstReply = Math.max(lastFirstReply, c.firstReplyUs);
    if (c.deliveredUs !== undefined) deliveries.push(c.deliveredUs);
  }
  for (const d of deliveries) endUs = Math.max(endUs, d);
  const replied = deliveries.length > 0;
  if (!replied) endUs = lastArrival;
  return {
    conn: first.conn,
    index: first.roundTrip,
    commands,
    startUs: first.arrivedUs,
    endUs,
    replied,
    flights: countFlights(commands, deliveries),
    serverUs: lastFirstReply > -Infinity ? Math.max(0, lastFirstReply - firstSent) : 0,
    linkRttUs: rttAt(first.arrivedUs),
  };
}

/** A request starts a new flight when reply bytes reached the client since the request before it. */
export function countFlights(commands: readonly CommandEvent[], deliveries: number[]): number {
  if (commands.length === 0) return 0;
  deliveries.sort((a, b) => a - b);
  let flights = 1;
  let j = 0;
  for (let i = 1; i < commands.length; i++) {
    const prev = commands[i - 1]!.arrivedUs;
    const cur = commands[i]!.arrivedUs;
    while (j < deliveries.length && deliveries[j]! <= prev) j++;
    if (j < deliveries.length && deliveries[j]! <= cur) flights++;
  }
  return flights;
}

/** RTT in effect at a time: the header's link, then each change from its time on. */
function linkLookup(initial: TraceLink, links: readonly LinkChange[]): (atUs: number) => number {
  const changes = [...links].sort((a, b) => a.atUs - b.atUs);
  return (atUs) => {
    let rtt = linkRttUs(initial);
    for (const ch of changes) {
      if (ch.atUs > atUs) break;
      rtt = linkRttUs(ch.link);
    }
    return rtt;
  };
}
