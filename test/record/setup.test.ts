import { describe, expect, it } from 'vitest';
import { analyzeTrace } from '../../src/record/analyze.js';
import { renderHtml } from '../../src/record/render-html.js';
import { renderText } from '../../src/record/render.js';
import { connectionSetup, isSetupCommand, setupAdvice, summarizeSetup, tlsRoundTrips } from '../../src/record/setup.js';
import { projectSession } from '../../src/record/projection.js';
import { buildTimelines } from '../../src/record/timeline.js';
import type { TapEvent } from '../../src/stats/types.js';
import { LOCAL_LINK, Session, traceOf } from './synthetic.js';

const RTT_US = 1000;
const LINK = { ...LOCAL_LINK, upUs: RTT_US / 2, downUs: RTT_US / 2 };

/**
 * A connection per request, as recorded through a 1 ms proxy with --listen-tls: each connection's TCP
 * connect and TLS handshake took place before its first request (the lead), then HELLO, then one GET.
 */
function perRequestSession(count: number, tls?: { version: string; resumed: boolean }): TapEvent[] {
  const events: TapEvent[] = [];
  let at = 0;
  for (let c = 1; c <= count; c++) {
    const s = new Session(events, c, at, RTT_US, 50);
    const handshakes = 1 + (tls ? tlsRoundTrips(tls.version, tls.resumed) : 0);
    // The recording proxy held the first bytes one RTT (TCP), and TLS crossed the link on its own.
    s.think(handshakes * RTT_US);
    if (tls) events.push({ type: 'tls', conn: c, atUs: s.nowUs, ...tls });
    s.rt(['HELLO']);
    s.rt(['GET']);
    s.close(10);
    at = s.nowUs + 100;
  }
  return events;
}

describe('connection set-up, pure', () => {
  it('knows the set-up commands, CLIENT subcommands by name', () => {
    expect(['HELLO', 'AUTH', 'SELECT', 'CLIENT SETNAME', 'CLIENT|SETINFO', 'READONLY'].every(isSetupCommand)).toBe(true);
    expect(['GET', 'CLIENT LIST', 'INFO', 'PING'].some(isSetupCommand)).toBe(false);
  });

  it('counts TLS 1.3 one round trip, TLS 1.2 two, one when resumed', () => {
    expect([tlsRoundTrips('TLSv1.3', false), tlsRoundTrips('TLSv1.2', false), tlsRoundTrips('TLSv1.2', true)]).toEqual([1, 2, 1]);
  });

  it('labels only the leading round trips of set-up commands, and charges TCP only to opened connections that sent something', () => {
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0);
    s.rt(['HELLO']);
    s.rt(['CLIENT SETINFO', 'CLIENT SETINFO']);
    s.rt(['GET']);
    s.rt(['SELECT']);
    events.push({ type: 'open', conn: 2, atUs: 5 });
    // conn 3 opened before the recording: no open line.
    events.push({ type: 'command', conn: 3, name: 'GET', argc: 2, bytesUp: 1, bytesDown: 1, arrivedUs: 9, sentUs: 9, firstReplyUs: 10, deliveredUs: 11, reply: '$', roundTrip: 1 });
    const [t1, t2, t3] = buildTimelines(events, LOCAL_LINK);
    expect(connectionSetup(t1!)).toEqual({ opened: true, tcpRoundTrips: 1, tlsRoundTrips: 0, commandRoundTrips: 2 });
    expect(connectionSetup(t1!, false).tcpRoundTrips).toBe(0);
    expect(connectionSetup(t2!)).toEqual({ opened: true, tcpRoundTrips: 0, tlsRoundTrips: 0, commandRoundTrips: 0 });
    expect(connectionSetup(t3!)).toEqual({ opened: false, tcpRoundTrips: 0, tlsRoundTrips: 0, commandRoundTrips: 0 });
    expect(summarizeSetup([t1!, t2!, t3!])).toEqual({
      opened: 2, tls: {}, tcpRoundTrips: 1, tlsRoundTrips: 0, commandRoundTrips: 2,
      setupCommands: { HELLO: 1, 'CLIENT SETINFO': 2 }, otherCommands: 3, perConnection: 1,
    });
  });

  it('advises only for several connections and a share at or above 20% at the largest RTT', () => {
    const s = summarizeSetup(buildTimelines(perRequestSession(3), LINK));
    expect(setupAdvice(s, [{ rttUs: 85_000, setupSharePct: 66.7 }, { rttUs: 200, setupSharePct: 10 }])).toBe(
      '3 connections opened for 3 commands: connection set-up is 67% of the time waited at RTT 85ms ' +
        '(2 round trips per connection before its first command); reuse connections (a pool, one long-lived client)',
    );
    expect(setupAdvice(s, [{ rttUs: 85_000, setupSharePct: 19.9 }])).toBeUndefined();
    // One round trip, in the singular.
    expect(setupAdvice({ ...s, perConnection: 1 }, [{ rttUs: 85_000, setupSharePct: 66.7 }])).toContain('(1 round trip per connection before');
    expect(setupAdvice(summarizeSetup(buildTimelines(perRequestSession(1), LINK)), [{ rttUs: 85_000, setupSharePct: 90 }])).toBeUndefined();
  });
});

describe('the what-if with set-up', () => {
  for (const [label, tls, tlsRtts] of [['TCP', undefined, 0], ['TLS 1.3', { version: 'TLSv1.3', resumed: false }, 1], ['TLS 1.2', { version: 'TLSv1.2', resumed: false }, 2]] as const) {
    it(`${label}: each connection pays ${1 + tlsRtts} handshake RTTs + HELLO at the new RTT, replacing what they cost when recorded`, () => {
      const n = 4;
      const timelines = buildTimelines(perRequestSession(n, tls), LINK);
      const recorded = projectSession(timelines, RTT_US, { recordedHandshake: true });
      const at = projectSession(timelines, 20 * RTT_US, { recordedHandshake: true });
      const handshakeUs = (1 + tlsRtts) * 20 * RTT_US;
      // Each connection: handshakes + HELLO + GET, every round trip 19 ms longer; connections follow each other.
      expect(at.wallUs - recorded.wallUs).toBeCloseTo(n * ((1 + tlsRtts) * 19 * RTT_US + 2 * 19 * RTT_US), 6);
      expect(at.handshakeUs).toBe(n * handshakeUs);
      expect(at.setupUs).toBeCloseTo(n * (handshakeUs + 20 * RTT_US + 50), 6);
      const a = analyzeTrace(traceOf(perRequestSession(n, tls), LINK), { rttsUs: [20 * RTT_US] });
      const p = a.projections[0]!;
      // Set-up over set-up + the GETs: (1 + tls + 1) of (2 + tls + 1) round trips, Redis's 50 us aside.
      expect(p.setupSharePct).toBeCloseTo((100 * (handshakeUs + 20_050)) / (handshakeUs + 2 * 20_050), 0);
      expect(a.setup).toMatchObject({ opened: n, tcpRoundTrips: n, tlsRoundTrips: n * tlsRtts, commandRoundTrips: n, otherCommands: n });
      expect(a.setup.advice).toMatch(new RegExp(`^${n} connections opened for ${n} commands: connection set-up is \\d+% of the time waited at RTT 20ms`));
    });
  }

  it('old traces without tls lines and one long-lived connection: no advice, set-up a small share', () => {
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0, RTT_US);
    s.think(RTT_US);
    s.rt(['HELLO']);
    for (let i = 0; i < 100; i++) s.rt(['GET']);
    const a = analyzeTrace(traceOf(events, LINK), { rttsUs: [85_000] });
    expect(a.setup.tls).toEqual({});
    expect(a.setup.advice).toBeUndefined();
    expect(a.projections[0]!.setupSharePct).toBeLessThan(3);
  });

  it('the text and HTML reports name the set-up and the advice', () => {
    const a = analyzeTrace(traceOf(perRequestSession(3, { version: 'TLSv1.3', resumed: false }), LINK), { rttsUs: [85_000] });
    const text = renderText(a);
    expect(text).toContain('connection set-up: 3 connections opened while recording (3 TLSv1.3); round trips before the first command: 3 TCP connect + 3 TLS + 3 of set-up commands (HELLO 3) = 3 per connection');
    expect(text).toMatch(/RTT +projected wall +waiting +x recorded +set-up +set-up share/);
    expect(text).toContain('note: 3 connections opened for 3 commands: connection set-up is');
    const html = renderHtml(a);
    expect(html).toContain('<th>set-up share</th>');
    expect(html).toContain('reuse connections');
  });
});

describe('the recording proxy held the first request for its TCP handshake', () => {
  // Recorded at 20 ms with handshake: true. The client sent HELLO 1 ms after connecting; the proxy held
  // it until 20 ms after the open, so HELLO's round trip took 19 ms of handshake + 20 ms + Redis.
  function recorded(): TapEvent[] {
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0, 20_000);
    s.holdUntilUs = 20_000;
    s.think(1000);
    s.rt(['HELLO']);
    for (let i = 0; i < 10; i++) s.rt(['GET']);
    s.close();
    return events;
  }
  const link = { ...LOCAL_LINK, upUs: 10_000, downUs: 10_000 };

  it('counts the hold as set-up paid once (TCP connect), not again inside the first round trip', () => {
    const a = analyzeTrace(traceOf(recorded(), link), { rttsUs: [1000, 20_000] });
    const [at1ms, at20ms] = a.projections;
    // TCP connect 1 ms + HELLO's round trip at 1 ms (1 ms + 50 us of Redis); it read 21.05 ms (the
    // recording's 19 ms hold kept) and waiting 11 x 1.05 ms + 19 ms.
    expect(at1ms!.setupMs).toBe(2.05);
    expect(at1ms!.waitMs).toBe(11 * 1.05);
    expect(at20ms!.setupMs).toBe(40.05);
    // Waiting on Redis as recorded leaves the hold out too, so a projection to the recorded RTT matches it.
    expect(a.totals.waitMs).toBe(11 * 20.05);
    expect(a.recorded.setupMs).toBe(40.05);
    expect(at20ms!.waitMs).toBe(a.totals.waitMs);
    // And the top commands' time waited adds up to it.
    expect(a.topCommands.reduce((n, c) => n + c.waitedMs, 0)).toBeCloseTo(a.totals.waitMs, 6);
    expect(a.topCommands.find((c) => c.name === 'HELLO')).toMatchObject({ waitedMs: 20.05, meanUs: 20_050 });
  });

  it('leaves the projected wall as it was: the connection starts 2 RTTs before its first reply', () => {
    const timelines = buildTimelines(recorded(), link);
    expect(timelines[0]!.handshakeHoldUs).toBe(19_000);
    // 1 ms of the client's own, the hold overlapping it as the proxy did, HELLO's and the GETs' round trips.
    expect(projectSession(timelines, 1000, { recordedHandshake: true }).wallUs).toBe(1000 + 1050 + 10 * 1050);
    expect(projectSession(timelines, 20_000, { recordedHandshake: true }).wallUs).toBe(timelines[0]!.endUs - timelines[0]!.startUs);
  });

  it('finds no hold where the trace shows none, or the recording proxy charged no handshake', () => {
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0, 20_000);
    s.think(1000);
    for (let i = 0; i < 3; i++) s.rt(['GET']);
    expect(buildTimelines(events, link)[0]!.handshakeHoldUs).toBe(0);
    expect(buildTimelines(recorded(), { ...link, handshake: false })[0]!.handshakeHoldUs).toBe(0);
  });
});
