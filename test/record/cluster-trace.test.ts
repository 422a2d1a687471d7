/**
 * Cluster traces without a cluster: the id remap of the node proxies' events, the open line's node
 * fields and nodelink lines through the text format (and old traces without them), per-node link RTTs
 * in the timelines and the projection, and analyze's per-node rows and redirect count.
 */
import { describe, expect, it } from 'vitest';
import { ClusterEventIds } from '../../src/cluster/event-ids.js';
import { analyzeTrace } from '../../src/record/analyze.js';
import { projectSession } from '../../src/record/projection.js';
import { renderText } from '../../src/record/render.js';
import { renderHtml } from '../../src/record/render-html.js';
import { buildTimelines } from '../../src/record/timeline.js';
import { encodeEnd, encodeEvent, encodeHeader, encodeNodeLink, type NodeLinkChange } from '../../src/record/trace-format.js';
import type { TapEvent } from '../../src/stats/types.js';
import { LOCAL_LINK, reparse, Session, traceOf, type CmdSpec } from './synthetic.js';

const A = '127.0.0.1:30001';
const B = '127.0.0.1:30002';
const linkOf = (rttUs: number) => ({ ...LOCAL_LINK, upUs: rttUs / 2, downUs: rttUs / 2 });

describe('ClusterEventIds', () => {
  it('numbers connections across nodes, names the node on open, and forgets a connection at close', () => {
    const out: TapEvent[] = [];
    const ids = new ClusterEventIds();
    const a = ids.forNode({ node: A, listen: () => '127.0.0.1:7000' }, (e) => out.push(e));
    const b = ids.forNode({ node: B, listen: () => '127.0.0.1:7001' }, (e) => out.push(e));
    a({ type: 'open', conn: 1, atUs: 1, client: 'c1' });
    b({ type: 'open', conn: 1, atUs: 2, client: 'c2' });
    a({ type: 'push', conn: 1, atUs: 3, bytes: 9, kind: 'message' });
    b({ type: 'close', conn: 1, atUs: 4 });
    a({ type: 'open', conn: 2, atUs: 5 });
    // A node's own id seen again after its close is a new connection (the node proxies never reuse one).
    b({ type: 'open', conn: 1, atUs: 6 });
    expect(out).toEqual([
      { type: 'open', conn: 1, atUs: 1, client: 'c1', node: A, listen: '127.0.0.1:7000' },
      { type: 'open', conn: 2, atUs: 2, client: 'c2', node: B, listen: '127.0.0.1:7001' },
      { type: 'push', conn: 1, atUs: 3, bytes: 9, kind: 'message' },
      { type: 'close', conn: 2, atUs: 4 },
      { type: 'open', conn: 3, atUs: 5, node: A, listen: '127.0.0.1:7000' },
      { type: 'open', conn: 4, atUs: 6, node: B, listen: '127.0.0.1:7001' },
    ]);
  });
});

describe('cluster trace lines', () => {
  const header = encodeHeader(new Date('2025-01-01T00:00:00Z'), 'none', LOCAL_LINK, 'redis-rtt test');
  const end = encodeEnd({ atUs: 9000, events: 2, dropped: 0, bytes: 1 });

  it('round-trip the open line node fields and nodelink lines; unsafe addresses are dropped', () => {
    const open = encodeEvent({ type: 'open', conn: 7, atUs: 1900.2, client: '127.0.0.1:52150', node: B, listen: '[::1]:40123' }, 1000, 'none');
    expect(open).toBe(`{"type":"open","c":7,"t":900.2,"client":"127.0.0.1:52150","node":"${B}","listen":"[::1]:40123"}`);
    const bad = encodeEvent({ type: 'open', conn: 8, atUs: 1000, node: 'a"b:1', listen: 'x y' }, 1000, 'none');
    expect(JSON.parse(bad!)).toEqual({ type: 'open', c: 8, t: 0 });
    expect(encodeNodeLink(1, 'evil"node', undefined, LOCAL_LINK)).toBeUndefined();
    const t = reparse([header, encodeNodeLink(3.14, B, '[::1]:40123', linkOf(2000))!, open, bad, end].join('\n') + '\n');
    expect(t.nodeLinks).toEqual([{ atUs: 3.1, node: B, listen: '[::1]:40123', link: linkOf(2000) }]);
    expect(t.links).toEqual([]);
    expect(t.events).toEqual([
      { type: 'open', conn: 7, atUs: 900.2, client: '127.0.0.1:52150', node: B, listen: '[::1]:40123' },
      { type: 'open', conn: 8, atUs: 0 },
    ]);
  });

  it('an old single-node trace (no node fields, no nodelink lines) reads and analyzes as before', () => {
    const old = [
      '{"type":"header","format":"redis-rtt-trace","version":1,"startedAt":"2025-01-01T00:00:00.000Z","clock":"proxy monotonic us","keys":"none","link":{"upUs":0,"downUs":0,"jitterUs":0,"jitterDist":"uniform","bandwidthBps":0,"handshake":true},"tool":"redis-rtt 0.1.0"}',
      '{"type":"open","c":1,"t":812.4,"client":"127.0.0.1:52144"}',
      '{"type":"cmd","c":1,"rt":1,"n":"GET","argc":2,"up":27,"down":11,"t":1520.3,"sent":0.9,"first":48.2,"dlv":61.7,"r":"$"}',
      '{"type":"close","c":1,"t":90210}',
      '{"type":"end","t":130000,"events":3,"dropped":0,"bytes":600}',
    ].join('\n');
    const t = reparse(`${old}\n`);
    expect(t.nodeLinks).toEqual([]);
    expect(t.events[0]).toEqual({ type: 'open', conn: 1, atUs: 812.4, client: '127.0.0.1:52144' });
    const a = analyzeTrace(t);
    expect(a.nodes).toEqual([]);
    expect(a.redirects).toEqual({ moved: 0, ask: 0 });
    expect(a.totals).toMatchObject({ connections: 1, commands: 1, roundTrips: 1 });
    expect(renderText(a)).not.toContain('nodes (cluster');
    expect(renderHtml(a)).not.toContain('<h2>Nodes</h2>');
  });
});

/** Node A on a 0 link (3 GETs, the first answered -MOVED), node B on 2 ms (2 GETs), one connection each. */
function clusterSession(): { events: TapEvent[]; nodeLinks: NodeLinkChange[] } {
  const events: TapEvent[] = [];
  const a = new Session(events, 1, 100, 0);
  const b = new Session(events, 2, 100, 2000);
  Object.assign(events[0]!, { node: A, listen: '127.0.0.1:7000' });
  Object.assign(events[1]!, { node: B, listen: '127.0.0.1:7001' });
  a.rt([{ name: 'GET', errorPrefix: 'MOVED' }]);
  a.think(10).rt(['GET']);
  a.think(10).rt(['GET']);
  a.close();
  b.rt(['GET']);
  b.think(10).rt([{ name: 'GET', errorPrefix: 'ASK' }]);
  b.close();
  return { events, nodeLinks: [{ atUs: 0, node: A, link: linkOf(0) }, { atUs: 0, node: B, link: linkOf(2000) }] };
}

describe('analyze on a cluster trace', () => {
  it("prices each connection at its node's link, not the header's", () => {
    const { events, nodeLinks } = clusterSession();
    const [ta, tb] = buildTimelines(events, LOCAL_LINK, [], nodeLinks);
    expect(ta!.roundTrips.map((rt) => rt.linkRttUs)).toEqual([0, 0, 0]);
    expect(tb!.roundTrips.map((rt) => rt.linkRttUs)).toEqual([2000, 2000]);
    expect(tb!.openLinkRttUs).toBe(2000);
    // At 2 ms node B's round trips stay as recorded; node A's each gain 2 ms.
    const p = projectSession([ta!, tb!], 2000, { handshake: false });
    const recordedWait = (t: typeof ta) => t!.roundTrips.reduce((s, rt) => s + rt.endUs - rt.startUs, 0);
    expect(p.connections[1]!.waitUs).toBe(recordedWait(tb));
    expect(p.connections[0]!.waitUs).toBe(recordedWait(ta) + 3 * 2000);
    // Without nodelink lines (an old reader's view) both nodes pay the header's link.
    expect(buildTimelines(events, LOCAL_LINK)[1]!.roundTrips.map((rt) => rt.linkRttUs)).toEqual([0, 0]);
  });

  it('chains round trips across node connections: a client alternating nodes waits for each in turn', () => {
    // One client, two node connections, 4 sequential GETs alternating A, B, A, B (10 us think between).
    const events: TapEvent[] = [];
    const a = new Session(events, 1, 0, 0);
    const b = new Session(events, 2, 0, 0);
    Object.assign(events[0]!, { node: A });
    Object.assign(events[1]!, { node: B });
    let now = 0;
    for (const s of [a, b, a, b]) {
      s.nowUs = now + 10;
      now = s.nowUs + s.rt(['GET']);
    }
    const timelines = buildTimelines(events, LOCAL_LINK);
    const recordedWallUs = now;
    const chained = projectSession(timelines, 1000, { handshake: false, chainConnections: true });
    const independent = projectSession(timelines, 1000, { handshake: false });
    expect(chained.wallUs).toBe(recordedWallUs + 4 * 1000);
    expect(independent.wallUs).toBeLessThan(recordedWallUs + 4 * 1000);
    // analyze chains a trace whose connections name nodes, and not a single-node one.
    expect(analyzeTrace(traceOf(events), { rttsUs: [1000], handshake: false }).projections[0]!.wallMs).toBe(chained.wallUs / 1000);
    const single = events.map((e) => (e.type === 'open' ? { type: e.type, conn: e.conn, atUs: e.atUs } : e));
    expect(analyzeTrace(traceOf(single), { rttsUs: [1000], handshake: false }).projections[0]!.wallMs).toBe(independent.wallUs / 1000);
  });

  it('chains after the connects: node connections opened together pay their TCP connects side by side', () => {
    // A cluster client connects to every node at once. The connect delay was added after the chain, so
    // B's connect was paid again after A's GET, as if B had connected only then: one RTT too many.
    const events: TapEvent[] = [];
    const a = new Session(events, 1, 0, 0);
    const b = new Session(events, 2, 5, 0);
    Object.assign(events[0]!, { node: A });
    Object.assign(events[1]!, { node: B });
    b.nowUs = 20 + a.think(20).rt(['GET']);
    b.rt(['GET']);
    const chained = projectSession(buildTimelines(events, LOCAL_LINK), 1000, { chainConnections: true });
    // Connects (1 ms, overlapping), then A's GET, then B's: 3 RTTs on top of the recorded wall.
    expect(chained.wallUs).toBe(b.nowUs + 3 * 1000);
  });

  it("a node's wait is its connections' wait: the recording's handshake hold is set-up in both tables", () => {
    // Node B's connection sends its first GET 100 us after the open; the recording proxy held it until one
    // 2 ms RTT after the open. The connections table left the 1.9 ms hold out of the wait, the nodes table
    // counted it: one node, one connection, two waits.
    const events: TapEvent[] = [];
    const a = new Session(events, 1, 0, 0);
    const b = new Session(events, 2, 0, 2000);
    Object.assign(events[0]!, { node: A });
    Object.assign(events[1]!, { node: B });
    a.think(100).rt(['GET']);
    a.think(10).rt(['GET']);
    a.close();
    b.holdUntilUs = 2000;
    b.think(100).rt(['GET']);
    b.think(10).rt(['GET']);
    b.close();
    const nodeLinks = [{ atUs: 0, node: A, link: linkOf(0) }, { atUs: 0, node: B, link: linkOf(2000) }];
    const analysis = analyzeTrace({ ...traceOf(events), nodeLinks });
    const byNode = (node: string) => analysis.connections.filter((c) => c.node === node).reduce((sum, c) => sum + c.waitMs, 0);
    expect(analysis.connections[1]!.waitMs).toBe((2 * (2000 + 50)) / 1000);
    expect(analysis.nodes.map((n) => [n.node, n.waitMs])).toEqual([[A, byNode(A)], [B, byNode(B)]]);
    expect(analysis.topCommands[0]!.waitedMs).toBe(analysis.totals.waitMs);
  });

  // An ioredis Cluster's loop of SETs read 'one MSET of 14 keys' on a node connection: keys in different slots
  // of that node make MSET fail with CROSSSLOT, and a trace holds no slot.
  it('advises a multi-key command across keys only as one that needs them in one hash slot', () => {
    // `first`: what the connection sent before the loop (a cluster client reads the slot map first).
    const loopOn = (first: CmdSpec | undefined, name: string, keys: string[]) => {
      const events: TapEvent[] = [];
      const s = new Session(events, 1, 0);
      Object.assign(events[0]!, { node: A });
      if (first !== undefined) s.rt([first]);
      for (const key of keys) s.rt([{ name, argc: name === 'SET' ? 3 : 2, key }]);
      return analyzeTrace(traceOf(events, LOCAL_LINK, 'hashed'), { rttsUs: [1000] }).opportunities[0]!;
    };
    const four = ['k1', 'k2', 'k3', 'k4'];
    const slots = { name: 'CLUSTER SLOTS', reply: '*' };
    expect(loopOn(slots, 'SET', four)).toMatchObject({ kind: 'loop', count: 4, instead: 'one pipeline, if independent (MSET only if the keys share a hash slot: a {hash tag})' });
    expect(loopOn({ name: 'GET', errorPrefix: 'MOVED' }, 'GET', four).multiKey).toBeUndefined();
    // A Sentinel set-up's trace names its nodes too; a CLUSTER SLOTS refused is no cluster either.
    expect(loopOn(undefined, 'GET', four)).toMatchObject({ multiKey: 'MGET', instead: 'one MGET of 4 keys, or one pipeline, if independent' });
    expect(loopOn({ name: 'CLUSTER SLOTS', errorPrefix: 'ERR' }, 'GET', four)).toMatchObject({ multiKey: 'MGET' });
    // One key, or a command on one key's fields: one slot.
    expect(loopOn(slots, 'GET', ['k', 'k', 'k'])).toMatchObject({ multiKey: 'MGET' });
    expect(loopOn(slots, 'HGET', ['h', 'h', 'h'])).toMatchObject({ multiKey: 'HMGET' });
  });

  it('one row per node, redirects counted and named in the report', () => {
    const { events, nodeLinks } = clusterSession();
    const a = analyzeTrace({ ...traceOf(events), nodeLinks });
    expect(a.nodes).toEqual([
      expect.objectContaining({ node: A, listen: '127.0.0.1:7000', linkRttsUs: [0], connections: 1, commands: 3, roundTrips: 3, roundTripSharePct: 60, redirects: { moved: 1, ask: 0 } }),
      expect.objectContaining({ node: B, listen: '127.0.0.1:7001', linkRttsUs: [2000], connections: 1, commands: 2, roundTrips: 2, roundTripSharePct: 40, redirects: { moved: 0, ask: 1 } }),
    ]);
    expect(a.redirects).toEqual({ moved: 1, ask: 1 });
    expect(a.connections.map((c) => c.node)).toEqual([A, B]);
    const text = renderText(a);
    // Sentinel mode's traces name their nodes too: the words were 'cluster' alone.
    expect(text).toContain('nodes (cluster or Sentinel mode: each connection went to one node\'s listener)');
    expect(text).toContain('(a trace of cluster or Sentinel nodes: one client driving its nodes in turn)');
    expect(text).toContain('redirects: 1 MOVED, 1 ASK redirects: each an extra round trip');
    expect(text).toMatch(/^ {2}127\.0\.0\.1:30002 +127\.0\.0\.1:7001 +2ms +1 +2 +2 +40\.0%/m);
    // The nodes ran at links of their own (zones, --node-link): the header's is no node's RTT.
    expect(text).toContain('recorded link RTT 0-2ms per node');
    expect(text).toMatch(/^ *0-2ms per node \(recorded\)/m);
    // The HTML report carries the same: the node per connection, the nodes table, the redirects.
    const html = renderHtml(a);
    expect(html).toContain('<p>Redirects: 1 MOVED, 1 ASK redirects: each an extra round trip');
    expect(html).toContain('<h2>Nodes</h2>');
    expect(html).toContain('Recorded on a link with RTT 0-2ms per node');
    expect(html).toContain('<tr><td class="l">127.0.0.1:30002</td><td class="l">127.0.0.1:7001</td><td>2ms</td><td>1</td><td>2</td><td>2</td><td>40.0%</td>');
    expect(html).toContain(`<th class="l">node</th><th>commands</th>`);
    // The page says how a cluster trace is projected (round trips chained across the node connections), not the
    // single-node "opened after" caveat, which the chaining contradicts.
    expect(html).toContain('Cluster or Sentinel trace: each round trip waits for whatever finished before it on any node&#39;s connection');
    expect(html).not.toContain('other than &quot;opened after&quot;');
    expect(renderHtml(analyzeTrace(traceOf(events.map((e) => (e.type === 'open' ? { type: e.type, conn: e.conn, atUs: e.atUs } : e)))))).toContain(
      'other than &quot;opened after&quot; are not visible',
    );
  });
});
