/**
 * What-if: the recorded session replayed over a link with another RTT.
 *
 * Model. A connection's recorded timeline is a chain: think gap, round trip, think gap, round trip...
 * The client could not send what followed a round trip before its reply arrived, so at a different RTT
 * everything after a round trip moves by that round trip's change:
 *     duration' = max(0, duration - recorded RTT + target RTT)      (only round trips that got a reply)
 * Think time (the client's own work between a reply and its next request), Redis's time and the proxy's
 * own hop stay as recorded; the number of round trips stays too (the application is not rewritten).
 * A connection opened during the recording also pays its TCP set-up, one RTT before its first request,
 * and a TLS client its handshake's round trips (setup.ts), less what they cost on the recording link
 * (the recording proxy charged TLS always, TCP unless --no-handshake). `setupUs` is the time spent on
 * set-up at the target RTT: those handshakes plus the leading round trips of set-up commands (HELLO...).
 *
 * Across connections: a connection that opens while others are busy is taken to start independently,
 * but it inherits the shift of the most recent round trip (on any connection) that finished before it
 * opened: a script that opens a second connection after the first one's work, or a client reconnecting,
 * starts later when that work takes longer. Projected wall = latest projected end - earliest start.
 *
 * In a cluster trace (connections naming their nodes) one client usually drives every node connection in
 * turn, so `chainConnections` goes further: every round trip, not only a connection's open, inherits the
 * shift of the latest round trip (on any connection) that finished before it started. Round trips that
 * overlap (a pipeline split per node) stay parallel; connections of independent clients get serialised
 * (an over-estimate, said in docs/record-analyze.md).
 *
 * Limits: dependencies between connections other than "opened after" are invisible (a subscriber waits for
 * a publisher on another connection; a pool's connections run in parallel but share one application
 * thread); a request sent while others were outstanding on the same connection is assumed to have waited
 * for nothing (pipelining and auto-pipelining are kept, not re-batched); bandwidth, jitter and server load
 * at the new RTT are not modelled; blocking commands keep their recorded wait; a client that sleeps a whole
 * RTT between replies wakes up a little slower than one that never sleeps, so think time measured on a fast
 * link is a floor. Checked against a real 20 ms link (test/record/end-to-end.test.ts; the result is in
 * docs/measurements.md); treat many-connection projections as a guide.
 */
import { connectionSetup } from './setup.js';
import type { ConnectionTimeline } from './timeline.js';

export interface ProjectionOptions {
  /** Charge one RTT of TCP set-up to each connection opened during the recording. @default true */
  handshake?: boolean;
  /** Whether the recording proxy already charged set-up (header link.handshake). @default false */
  recordedHandshake?: boolean;
  /**
   * Price each connection's handshakes at the link it was recorded on (its node's, in a cluster
   * trace), not at `targetRttUs`: the session as it was. @default false
   */
  asRecorded?: boolean;
  /**
   * Each round trip also inherits the shift of the latest round trip that finished before it on any
   * connection, not only at a connection's open: one application thread driving several connections
   * in turn (a cluster client across its node connections). @default false
   */
  chainConnections?: boolean;
  /**
   * Added to every replied round trip: the loss model's mean cost at the target link
   * (link/loss-cost.ts), so a lossy projection's wall is the expected one. @default 0
   */
  roundTripExtraUs?: number;
}

export interface ConnectionProjection {
  conn: number;
  startUs: number;
  endUs: number;
  /** Sum of projected round-trip durations. */
  waitUs: number;
  /** Handshakes plus leading set-up-command round trips, at the target RTT. */
  setupUs: number;
}

export interface SessionProjection {
  rttUs: number;
  wallUs: number;
  roundTrips: number;
  waitUs: number;
  /** Sum of the connections' setupUs. */
  setupUs: number;
  /** Handshake time alone (not in waitUs, which holds round trips the tap saw). */
  handshakeUs: number;
  connections: ConnectionProjection[];
}

interface Activity {
  atUs: number;
  /** start: a connection opens; rt: its round trip `index` starts; done: a round trip (or the connection) ended. */
  kind: 'start' | 'rt' | 'done';
  conn: number;
  index?: number;
  /** For 'done': the connection's shift after this moment. */
  shiftUs?: number;
}

interface ConnState {
  inheritUs: number;
  shiftUs: number;
  waitUs: number;
  setupUs: number;
  /** Set-up handshakes at the target less what the recording link charged; added before the first round trip. */
  handshakeDeltaUs: number;
  /** The recording's TCP handshake inside the first round trip (ConnectionTimeline.handshakeHoldUs). */
  holdUs: number;
  commandRoundTrips: number;
}

/** Projects the session to `targetRttUs`. Timelines as buildTimelines returns them. */
export function projectSession(timelines: readonly ConnectionTimeline[], targetRttUs: number, o: ProjectionOptions = {}): SessionProjection {
  const handshake = o.handshake ?? true;
  const extraUs = o.roundTripExtraUs ?? 0;
  const byConn = new Map(timelines.map((t) => [t.conn, t]));
  const results = new Map<number, ConnectionProjection>();
  const states = new Map<number, ConnState>();
  let latest: { atUs: number; shiftUs: number } | undefined;
  let handshakeTotalUs = 0;
  const finish = (t: ConnectionTimeline, st: ConnState): void => {
    if (t.closeUs !== undefined) queue.add({ atUs: t.endUs, kind: 'done', conn: t.conn, shiftUs: st.shiftUs });
    results.set(t.conn, { conn: t.conn, startUs: t.startUs + st.inheritUs, endUs: t.endUs + st.shiftUs, waitUs: st.waitUs, setupUs: st.setupUs });
  };

  // Sweep in time order; at equal times a finished round trip comes before a start (it happened first).
  const queue = new ActivityQueue(timelines.map((t) => ({ atUs: t.startUs, kind: 'start', conn: t.conn })));
  for (let a = queue.next(); a; a = queue.next()) {
    if (a.kind === 'done') {
      if (!latest || a.atUs > latest.atUs || (a.atUs === latest.atUs && a.shiftUs! > latest.shiftUs)) {
        latest = { atUs: a.atUs, shiftUs: a.shiftUs! };
      }
      continue;
    }
    const t = byConn.get(a.conn)!;
    if (a.kind === 'start') {
      const inheritUs = latest?.shiftUs ?? 0;
      const setup = connectionSetup(t, handshake);
      const handshakeUs = (setup.tcpRoundTrips + setup.tlsRoundTrips) * (o.asRecorded ? t.openLinkRttUs : targetRttUs);
      const recordedUs = ((o.recordedHandshake ? setup.tcpRoundTrips : 0) + setup.tlsRoundTrips) * t.openLinkRttUs;
      const holdUs = o.recordedHandshake ? t.handshakeHoldUs : 0;
      // The hold leaves the first round trip (it is set-up, paid at the target above, not waiting on
      // Redis) and, when TCP is charged, joins the delta, so the wall comes out as before.
      const st: ConnState = {
        inheritUs, shiftUs: inheritUs, waitUs: 0, setupUs: handshakeUs, handshakeDeltaUs: handshakeUs - recordedUs + (setup.tcpRoundTrips > 0 ? holdUs : 0),
        holdUs, commandRoundTrips: setup.commandRoundTrips,
      };
      states.set(t.conn, st);
      handshakeTotalUs += handshakeUs;
      if (t.roundTrips.length > 0) queue.add({ atUs: t.roundTrips[0]!.startUs, kind: 'rt', conn: t.conn, index: 0 });
      else finish(t, st);
      continue;
    }
    const st = states.get(t.conn)!;
    const i = a.index!;
    const rt = t.roundTrips[i]!;
    // One application driving every connection (a cluster client): this round trip also waits for
    // whatever finished before it on the others.
    // The handshakes began at the open, so they overlap what the others did since: applied before the chain,
    // or a connection opened early (a cluster client connects to every node at once) paid them after it.
    if (i === 0) st.shiftUs += st.handshakeDeltaUs;
    if (o.chainConnections && latest) st.shiftUs = Math.max(st.shiftUs, latest.shiftUs);
    const durationUs = rt.endUs - rt.startUs;
    const paidUs = i === 0 ? durationUs - st.holdUs : durationUs;
    const projectedUs = rt.replied && !o.asRecorded ? Math.max(0, paidUs - rt.linkRttUs + targetRttUs) + extraUs : paidUs;
    st.shiftUs += projectedUs - durationUs;
    st.waitUs += projectedUs;
    if (i < st.commandRoundTrips) st.setupUs += projectedUs;
    queue.add({ atUs: rt.endUs, kind: 'done', conn: t.conn, shiftUs: st.shiftUs });
    if (i + 1 < t.roundTrips.length) queue.add({ atUs: t.roundTrips[i + 1]!.startUs, kind: 'rt', conn: t.conn, index: i + 1 });
    else finish(t, st);
  }

  const connections = timelines.map((t) => results.get(t.conn)!);
  let startUs = Infinity;
  let endUs = -Infinity;
  for (const c of connections) {
    startUs = Math.min(startUs, c.startUs);
    endUs = Math.max(endUs, c.endUs);
  }
  return {
    rttUs: targetRttUs,
    wallUs: connections.length > 0 ? Math.max(0, endUs - startUs) : 0,
    roundTrips: timelines.reduce((n, t) => n + t.roundTrips.length, 0),
    waitUs: connections.reduce((n, c) => n + c.waitUs, 0),
    setupUs: connections.reduce((n, c) => n + c.setupUs, 0),
    handshakeUs: handshakeTotalUs,
    connections,
  };
}

/** A min-queue on (time, done-before-start). Small binary heap: traces can hold millions of round trips. */
class ActivityQueue {
  private readonly heap: Activity[] = [];
  constructor(initial: Activity[]) {
    for (const a of initial) this.add(a);
  }
  add(a: Activity): void {
    const h = this.heap;
    h.push(a);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  next(): Activity | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: Activity, b: Activity): boolean {
  if (a.atUs !== b.atUs) return a.atUs < b.atUs;
  return a.kind === 'done' && b.kind !== 'done';
}
