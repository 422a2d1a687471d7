import { describe, expect, it } from 'vitest';
import { analyzeTrace } from '../../src/record/analyze.js';
import { depthBucket } from '../../src/tap/counters.js';
import { projectSession } from '../../src/record/projection.js';
import { buildTimelines } from '../../src/record/timeline.js';
import { renderText } from '../../src/record/render.js';
import { renderHtml } from '../../src/record/render-html.js';
import type { CommandEvent, TapEvent } from '../../src/stats/types.js';
import { LOCAL_LINK, Session, traceOf } from './synthetic.js';

/** HELLO, think 100 us, 200 GETs one at a time (20 us apart), one pipeline of 100 SETs, close. */
function nPlusOneSession(): TapEvent[] {
  const events: TapEvent[] = [];
  const s = new Session(events, 1, 1000);
  s.rt(['HELLO']);
  s.think(100);
  for (let i = 0; i < 200; i++) {
    s.rt([{ name: 'GET', key: `k${i}` }]);
    s.think(20);
  }
  s.rt(Array.from({ length: 100 }, () => ({ name: 'SET', argc: 3 })));
  s.close();
  return events;
}

describe('a trace with no command', () => {
  // Every table was empty and every projection 0 ms, without a word: it read as a session that cost nothing.
  it('says no client connected, or that the connections sent nothing', () => {
    expect(analyzeTrace(traceOf([])).trace.warnings).toEqual([
      "the trace holds no connection: no client connected while recording (point the application at the proxy's --listen address)",
    ]);
    const events: TapEvent[] = [];
    new Session(events, 1, 1000).close();
    expect(analyzeTrace(traceOf(events)).trace.warnings).toEqual([
      'the trace holds no command: 1 connection opened and sent nothing the proxy framed',
    ]);
    expect(analyzeTrace(traceOf(nPlusOneSession())).trace.warnings).toEqual([]);
  });
});

describe('analysis of a session with a known N+1 GET loop', () => {
  const a = analyzeTrace(traceOf(nPlusOneSession(), LOCAL_LINK, 'hashed'), { rttsUs: [200, 20_000] });

  it('counts commands, round trips, flights and depth exactly', () => {
    expect(a.totals).toMatchObject({
      connections: 1, commands: 301, replies: 301, errors: 0, roundTrips: 202, flights: 202, maxDepth: 100,
      depthHistogram: { '1': 201, '64-127': 1 },
    });
    expect(a.connections[0]).toMatchObject({ conn: 1, client: '127.0.0.1:50000', commands: 301, roundTrips: 202 });
  });

  it('projects a repeated RTT once (--rtt 1ms,1000us printed two equal rows and two equal saved columns)', () => {
    const twice = analyzeTrace(traceOf(nPlusOneSession()), { rttsUs: [1000, 20_000, 1000] });
    expect(twice.projections.map((p) => p.rttUs)).toEqual([1000, 20_000]);
    expect(twice.opportunities[0]!.savedMs.map((s) => s.rttUs)).toEqual([1000, 20_000]);
  });

  it('splits the wall time into waiting and think time', () => {
    // Waits: HELLO 50 + 200 GETs x 50 + the pipeline (last of 100 arrives at +99, answered 100 x 50 after it).
    expect(a.totals.waitMs).toBe((50 + 200 * 50 + 99 + 5000) / 1000);
    // Think: 100 after HELLO, then 20 after each GET (the last one before the pipeline).
    expect(a.totals.thinkMs).toBe((100 + 200 * 20) / 1000);
    expect(a.totals.wallMs).toBe(a.totals.waitMs + a.totals.thinkMs);
    expect(a.totals.leadMs).toBe(0);
  });

  it('projects each round trip to the new RTT, plus one RTT of connection set-up', () => {
    const recordedUs = 15_149 + 4_100;
    // Set-up: the TCP connect (one RTT) plus the HELLO round trip (50 us of Redis + the RTT).
    const share = (setupUs: number, waitUs: number, rttUs: number): number => Math.round((1000 * setupUs) / (waitUs + rttUs)) / 10;
    expect(a.recorded).toEqual({ rttUs: 0, wallMs: recordedUs / 1000, roundTrips: 202, waitMs: 15.149, setupMs: 0.05, setupSharePct: share(50, 15_149, 0) });
    expect(a.projections).toEqual([
      {
        rttUs: 200, wallMs: (recordedUs + 203 * 200) / 1000, roundTrips: 202, waitMs: (15_149 + 202 * 200) / 1000,
        setupMs: (200 + 250) / 1000, setupSharePct: share(450, 15_149 + 202 * 200, 200),
      },
      {
        rttUs: 20_000, wallMs: (recordedUs + 203 * 20_000) / 1000, roundTrips: 202, waitMs: (15_149 + 202 * 20_000) / 1000,
        setupMs: (20_000 + 20_050) / 1000, setupSharePct: share(40_050, 15_149 + 202 * 20_000, 20_000),
      },
    ]);
    expect(a.setup).toEqual({
      opened: 1, tls: {}, tcpRoundTrips: 1, tlsRoundTrips: 0, commandRoundTrips: 1, setupCommands: { HELLO: 1 }, otherCommands: 300, perConnection: 2,
    });
    const noSetup = analyzeTrace(traceOf(nPlusOneSession()), { rttsUs: [20_000], handshake: false });
    expect(noSetup.projections[0]!.wallMs).toBe((recordedUs + 202 * 20_000) / 1000);
  });

  it('flags the GET loop with the right counts, and nothing else', () => {
    expect(a.opportunities).toEqual([
      {
        kind: 'loop', conn: 1, command: 'GET', commands: { GET: 200 }, count: 200, firstRoundTrip: 2, lastRoundTrip: 201,
        startMs: 1.15, durationMs: (200 * 50 + 199 * 20) / 1000, waitedMs: 10, distinctKeys: 200, roundTripsSaved: 199,
        instead: 'one MGET of 200 keys, or one pipeline, if independent', multiKey: 'MGET',
        savedMs: [{ rttUs: 200, savedMs: 39.8 }, { rttUs: 20_000, savedMs: 3980 }],
      },
    ]);
  });

  it('ranks commands by time waited, sharing a pipeline among its commands', () => {
    expect(a.topCommands.map((c) => [c.name, c.count, c.waitedMs, c.roundTrips])).toEqual([
      ['GET', 200, 10, 200],
      ['SET', 100, 5.099, 1],
      ['HELLO', 1, 0.05, 1],
    ]);
    expect(a.topCommands[0]!.sharePct).toBe(66);
    expect(a.topCommands[0]!.meanUs).toBe(50);
  });
});

describe('a command whose reply the trace never had (cut off while it waited)', () => {
  it('has no mean latency in top commands, shown as "-", not 0', () => {
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0);
    s.rt(['GET']);
    s.rt([{ name: 'BLPOP', blocking: true }]);
    const waiting = events[events.length - 1] as CommandEvent;
    delete waiting.firstReplyUs;
    delete waiting.deliveredUs;
    const cut = analyzeTrace(traceOf(events), { rttsUs: [1000] });
    expect(cut.topCommands.map((c) => [c.name, c.meanUs])).toEqual(expect.arrayContaining([['GET', expect.any(Number)], ['BLPOP', null]]));
    const row = renderText(cut).split('\n').find((l) => /^\s*BLPOP\b/.test(l));
    expect(row?.trim().split(/\s+/)).toContain('-');
    expect(renderHtml(cut)).not.toMatch(/NaN|undefined|null/);
  });
});

describe('opportunities', () => {
  function run(build: (s: Session) => void, minRun = 3) {
    const events: TapEvent[] = [];
    build(new Session(events, 1, 0));
    return analyzeTrace(traceOf(events), { rttsUs: [1000], minRun }).opportunities;
  }

  it('reports mixed independent writes once, absorbing the same-command runs inside', () => {
    const ops = run((s) => {
      for (const name of ['SET', 'SET', 'SET', 'INCR', 'HSET', 'LPUSH', 'EXPIRE']) s.rt([name]);
      s.rt(['GET']);
    });
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ kind: 'writes', command: 'SET, INCR, HSET, LPUSH, EXPIRE', count: 7, roundTripsSaved: 6, savedMs: [{ rttUs: 1000, savedMs: 6 }] });
    expect(ops[0]!.commands).toEqual({ SET: 3, INCR: 1, HSET: 1, LPUSH: 1, EXPIRE: 1 });
  });

  it('ends a write run at an error reply, and a loop at a long pause', () => {
    const ops = run((s) => {
      for (const name of ['SET', 'INCR', 'SET']) s.rt([name]);
      s.rt([{ name: 'INCR', errorPrefix: 'WRONGTYPE' }]);
      s.rt(['GET']);
      s.rt(['GET']);
      s.rt(['GET']);
      s.think(150_000);
      s.rt(['GET']);
      s.rt(['GET']);
    });
    expect(ops.map((o) => [o.kind, o.command, o.count])).toEqual([
      ['writes', 'SET, INCR', 3],
      ['loop', 'GET', 3],
    ]);
  });

  it('never suggests batching blocking commands, round trips of several commands, or connection state', () => {
    const ops = run((s) => {
      for (let i = 0; i < 5; i++) s.rt([{ name: 'BLPOP', blocking: true }]);
      for (let i = 0; i < 5; i++) s.rt(['SELECT']);
      for (let i = 0; i < 5; i++) s.rt(['GET', 'GET']);
    });
    expect(ops).toEqual([]);
  });

  it('flags a loop of blocking commands queued in MULTI (they do not block), as it flags queued SETs', () => {
    const ops = run((s) => {
      s.rt(['MULTI']);
      for (let i = 0; i < 4; i++) s.rt(['BLPOP QUEUED']);
      s.rt(['EXEC']);
      for (let i = 0; i < 3; i++) s.rt([{ name: 'BLPOP', blocking: true }]);
      s.rt(['MULTI']);
      for (let i = 0; i < 3; i++) s.rt(['WAIT QUEUED']);
      s.rt(['EXEC']);
    });
    expect(ops.map((o) => [o.kind, o.command, o.count, o.instead])).toEqual([
      ['loop', 'BLPOP QUEUED', 4, 'one pipeline, if independent'],
      ['loop', 'WAIT QUEUED', 3, 'one pipeline, if independent'],
    ]);
  });

  it('lists cursor loops as dependent: no round trip saved, the round trips they cost, never "pipeline"', () => {
    for (const name of ['SCAN', 'HSCAN', 'SSCAN', 'ZSCAN']) {
      const ops = run((s) => {
        for (let i = 0; i < 50; i++) s.rt([{ name, argc: 4 }]);
        for (let i = 0; i < 4; i++) s.rt(['GET']);
      });
      expect(ops.map((o) => [o.kind, o.command, o.count, o.roundTripsSaved])).toEqual([
        ['loop', 'GET', 4, 3],
        ['dependent', name, 50, 0],
      ]);
      expect(ops[1]!.savedMs).toEqual([{ rttUs: 1000, savedMs: 0 }]);
      expect(ops[1]!.instead).toBe(
        `dependent: cannot be batched (each ${name} needs the previous cursor); 50 round trips cost 50 ms at 1 ms RTT; a larger COUNT needs fewer`,
      );
      expect(ops[1]!.instead).not.toMatch(/pipeline/);
    }
  });

  it('suggests a multi-key command only where it fits', () => {
    const ops = (names: Array<{ name: string; key?: string; argc?: number }>) =>
      run((s) => {
        for (const n of names) s.rt([n]);
      });
    expect(ops(Array.from({ length: 4 }, () => ({ name: 'HGET', key: 'aaaaaaaaaaaaaaaa' })))[0]).toMatchObject({ multiKey: 'HMGET', distinctKeys: 1 });
    expect(ops(Array.from({ length: 4 }, (_, i) => ({ name: 'HGET', key: `${i}` })))[0]).toMatchObject({ instead: 'one pipeline, if independent (4 different keys)' });
    expect(ops(Array.from({ length: 4 }, () => ({ name: 'HGET' })))[0]!.instead).toMatch(/record with --record-keys hashed/);
    expect(ops(Array.from({ length: 4 }, () => ({ name: 'SET', argc: 5 })))[0]).toMatchObject({ kind: 'loop', instead: 'one pipeline, if independent' });
    expect(ops(Array.from({ length: 4 }, () => ({ name: 'SET', argc: 3 })))[0]).toMatchObject({ multiKey: 'MSET' });
  });

  it("counts a run's waited time as the totals do: a loop from the first round trip leaves the handshake hold out", () => {
    // redis-cli reading GETs from stdin: no HELLO, so the held first request starts the loop. The run's
    // waited time counted the recording proxy's 1.9 ms hold, which the totals take as set-up.
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0, 2000);
    s.holdUntilUs = 2000;
    s.think(100);
    for (let i = 0; i < 4; i++) s.think(10).rt(['GET']);
    s.close();
    const a = analyzeTrace(traceOf(events, { ...LOCAL_LINK, upUs: 1000, downUs: 1000 }), { rttsUs: [1000] });
    expect(a.opportunities[0]).toMatchObject({ command: 'GET', count: 4, firstRoundTrip: 1 });
    expect(a.opportunities[0]!.waitedMs).toBe(a.totals.waitMs);
    expect(a.totals.waitMs).toBe((4 * (2000 + 50)) / 1000);
  });
});

describe('projection model', () => {
  it('replaces the recorded RTT of each replied round trip, keeping think and server time', () => {
    const link = { ...LOCAL_LINK, upUs: 5000, downUs: 5000, handshake: false };
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0, 10_000, 50);
    for (let i = 0; i < 10; i++) {
      s.rt(['GET']);
      s.think(300);
    }
    s.close();
    const timelines = buildTimelines(events, link);
    // Recorded: 10 x (10 ms + 50 us) + 10 x 300 us think.
    expect(timelines[0]!.endUs - timelines[0]!.startUs).toBe(10 * 10_050 + 3000);
    const at2ms = projectSession(timelines, 2000, { handshake: false });
    expect(at2ms.wallUs).toBe(10 * 2050 + 3000);
    expect(at2ms.waitUs).toBe(10 * 2050);
    // Set-up: the recording proxy did not charge it, so the projection adds the whole new RTT.
    expect(projectSession(timelines, 2000).wallUs).toBe(10 * 2050 + 3000 + 2000);
    expect(projectSession(timelines, 2000, { recordedHandshake: true }).wallUs).toBe(10 * 2050 + 3000 + 2000 - 10_000);
  });

  it('lets a connection opened after another finished inherit its shift; concurrent ones stay independent', () => {
    const events: TapEvent[] = [];
    const a = new Session(events, 1, 0);
    const c = new Session(events, 3, 10); // opens alongside conn 1
    for (let i = 0; i < 10; i++) a.rt(['GET']);
    for (let i = 0; i < 4; i++) c.rt(['GET']);
    a.close();
    const b = new Session(events, 2, a.nowUs + 100); // opens after conn 1 closed
    for (let i = 0; i < 5; i++) b.rt(['GET']);
    b.close();
    const p = projectSession(buildTimelines(events, LOCAL_LINK), 1000, { handshake: false });
    const byConn = Object.fromEntries(p.connections.map((x) => [x.conn, x]));
    expect(byConn[1]!.endUs - byConn[1]!.startUs).toBe(10 * 50 + 10 * 1000);
    expect(byConn[3]!.startUs).toBe(10);
    expect(byConn[2]!.startUs).toBe(10 * 50 + 100 + 10 * 1000);
    expect(p.wallUs).toBe(10 * 50 + 100 + 5 * 50 + 15 * 1000);
  });

  it('charges nothing for round trips that got no reply (CLIENT REPLY OFF, closed)', () => {
    const e: CommandEvent = { type: 'command', conn: 1, name: 'SET', argc: 3, bytesUp: 30, bytesDown: 0, arrivedUs: 0, sentUs: 1, reply: 'none', roundTrip: 1 };
    const p = projectSession(buildTimelines([e], LOCAL_LINK), 85_000, { handshake: false });
    expect(p.wallUs).toBe(0);
    expect(p.roundTrips).toBe(1);
  });

  // The tap writes rt 0 for a request that expects no reply while none is outstanding. Grouped as round
  // trip 0, the SETs below read as one round trip of depth 6 spanning 200 ms of waiting, sorted before the PING.
  it('puts requests sent under CLIENT REPLY OFF (rt 0) in no round trip, and counts them as commands', () => {
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0);
    s.rt(['PING']);
    const off = (name: string, atUs: number): CommandEvent => ({ type: 'command', conn: 1, name, argc: 3, bytesUp: 30, bytesDown: 0, arrivedUs: atUs, sentUs: atUs + 1, reply: 'none', roundTrip: 0 });
    events.push(off('CLIENT REPLY', s.nowUs + 10));
    for (let i = 0; i < 5; i++) events.push(off('SET', s.nowUs + 20 + i * 50_000));
    s.think(250_000);
    s.rt(['CLIENT REPLY']);
    for (let i = 0; i < 3; i++) s.rt(['GET']);
    s.close();
    const a = analyzeTrace(traceOf(events), { rttsUs: [85_000], handshake: false });
    expect(a.totals).toMatchObject({ commands: 11, replies: 5, roundTrips: 5, flights: 5, maxDepth: 1, depthHistogram: { '1': 5 }, bytesUp: 5 * 20 + 6 * 30 });
    expect(a.totals.waitMs).toBe((5 * 50) / 1000);
    expect(a.totals.thinkMs).toBe(250);
    expect(a.topCommands.find((c) => c.name === 'SET')).toMatchObject({ count: 5, waitedMs: 0, roundTrips: 0, meanUs: null });
    expect(a.opportunities.map((o) => o.command)).toEqual(['GET']);
    expect(a.projections[0]!.wallMs).toBe(a.totals.wallMs + 5 * 85);
    expect(a.setup.otherCommands).toBe(11);
  });
});

describe('timelines', () => {
  it('counts a second flight when a request follows reply bytes inside one round trip', () => {
    const base = { type: 'command' as const, conn: 1, name: 'GET', argc: 2, bytesUp: 10, bytesDown: 10, reply: '$', roundTrip: 1 };
    const events: CommandEvent[] = [
      { ...base, arrivedUs: 0, sentUs: 1, firstReplyUs: 90, deliveredUs: 100 },
      { ...base, arrivedUs: 0, sentUs: 1, firstReplyUs: 190, deliveredUs: 200 },
      { ...base, arrivedUs: 150, sentUs: 151, firstReplyUs: 250, deliveredUs: 260 },
    ];
    const [t] = buildTimelines(events, LOCAL_LINK);
    expect(t!.roundTrips).toHaveLength(1);
    expect(t!.roundTrips[0]).toMatchObject({ flights: 2, startUs: 0, endUs: 260, serverUs: 249 });
  });

  it('buckets depth by powers of two', () => {
    expect([1, 2, 3, 4, 7, 8, 100, 128].map(depthBucket)).toEqual(['1', '2-3', '2-3', '4-7', '4-7', '8-15', '64-127', '128-255']);
  });
});

describe('link changes during the recording', () => {
  it('charge each round trip the RTT that was in effect when it started', () => {
    const events: TapEvent[] = [];
    const s = new Session(events, 1, 0, 0, 50);
    for (let i = 0; i < 5; i++) s.rt(['GET']);
    const changedAt = s.nowUs + 1;
    s.think(10);
    s.linkRttUs = 10_000; // from here the link adds 10 ms per round trip
    for (let i = 0; i < 5; i++) s.rt(['GET']);
    const trace = traceOf(events, { ...LOCAL_LINK, handshake: false });
    trace.links = [{ atUs: changedAt, link: { ...LOCAL_LINK, upUs: 5000, downUs: 5000, handshake: false } }];
    const a = analyzeTrace(trace, { rttsUs: [1000], handshake: false });
    expect(a.totals.roundTrips).toBe(10);
    // Recorded: 5 x 50 + 10 think + 5 x 10 050; at 1 ms every round trip costs 1 050.
    expect(a.recorded.wallMs).toBe((5 * 50 + 10 + 5 * 10_050) / 1000);
    expect(a.projections[0]!.wallMs).toBe((10 * 1050 + 10) / 1000);
    // The report's recorded RTT is the range the link had, not the header's 0: half the session ran at 10 ms.
    expect(a.trace.linkRttsUs).toEqual([0, 10_000]);
    const text = renderText(a);
    expect(text).toContain('recorded link RTT 0-10ms over time, 1 link change(s)');
    expect(text).toMatch(/^ {2}0-10ms over time \(recorded\) /m);
    expect(renderHtml(a)).toContain('Recorded on a link with RTT 0-10ms over time');
    // A link that never changed: no range, and no linkRttsUs in the JSON.
    const steady = analyzeTrace(traceOf(events, { ...LOCAL_LINK, handshake: false }), { rttsUs: [1000], handshake: false });
    expect(steady.trace.linkRttsUs).toBeUndefined();
    expect(renderText(steady)).toContain('recorded link RTT 0, complete');
  });
});

describe('a session recorded on a lossy link', () => {
  it('says so: its round trips keep their resends at every RTT projected', () => {
    // Recorded through --loss 5%: most of the wall was resend stalls, which every what-if row kept, and the
    // report said only "recorded link RTT 2ms".
    const lossy = analyzeTrace(traceOf(nPlusOneSession(), { ...LOCAL_LINK, lossUp: 0.05, lossDown: 0.025 }));
    expect(lossy.trace.warnings).toEqual([expect.stringContaining('the link lost segments while recording (5% up, 2.5% down)')]);
    const clean = traceOf(nPlusOneSession());
    expect(analyzeTrace(clean).trace.warnings).toEqual([]);
    // A link line that brought the loss in counts the same.
    clean.links = [{ atUs: 10, link: { ...LOCAL_LINK, lossDown: 0.01 } }];
    expect(analyzeTrace(clean).trace.warnings).toEqual([expect.stringContaining('(0% up, 1% down)')]);
    // So does a cluster node's nodelink line (--node-link 127.0.0.1:30002=loss=2%): it said nothing.
    clean.links = [];
    clean.nodeLinks = [{ atUs: 0, node: '127.0.0.1:30002', link: { ...LOCAL_LINK, lossUp: 0.02, lossDown: 0.02 } }];
    expect(analyzeTrace(clean).trace.warnings).toEqual([expect.stringContaining('(2% up, 2% down)')]);
  });
});

describe('analyze --loss: the projection to a lossy link', () => {
  it('adds the loss model\'s mean to every replied round trip and gives the per-round-trip tail', () => {
    const trace = traceOf(nPlusOneSession(), LOCAL_LINK, 'hashed');
    const plain = analyzeTrace(trace, { rttsUs: [1200] }).projections[0]!;
    const lossy = analyzeTrace(trace, { rttsUs: [1200], loss: 0.01 }).projections[0]!;
    expect(plain.loss).toBeUndefined();
    expect(lossy.loss).toMatchObject({ p99Ms: 202.4, p999Ms: 202.4, slowSharePct: 1.99 });
    expect(lossy.loss!.meanMs).toBeCloseTo(4.065, 2);
    // 202 round trips, each with the mean on top.
    expect(lossy.wallMs - plain.wallMs).toBeCloseTo(202 * lossy.loss!.meanMs, 0);
    expect(lossy.roundTrips).toBe(plain.roundTrips);
  });
});
