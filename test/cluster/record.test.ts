/**
 * --record in cluster mode, against a real cluster: every node's connections go to one trace with ids
 * unique across nodes, each open line naming its node; analyze splits the session per node and its
 * figures equal what /stats cluster.nodes counted live. One node on its own link: its connections are
 * priced at that link.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { analyzeTrace } from '../../src/record/analyze.js';
import { recordOptionsFromFlags, type RecordHooks } from '../../src/record/cli-options.js';
import { renderText } from '../../src/record/render.js';
import { buildTimelines } from '../../src/record/timeline.js';
import { readTrace } from '../../src/record/trace-reader.js';
import { startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';
import type { TapEvent } from '../../src/stats/types.js';
import { keyPerMaster } from './helpers.js';

const SLOW_NODE_RTT_US = 2000;
const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-cluster-record-'));
let cluster: PrivateCluster;
let proxy: RedisRttClusterProxy;
let record: RecordHooks;
const events: TapEvent[] = [];

beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 0 });
  record = recordOptionsFromFlags({ record: join(dir, 'cluster.trace') }, { link: {}, handshake: true, log: () => {} })!;
  proxy = (await startProxy({
    upstream: cluster.address,
    cluster: 'on',
    nodeLinks: [`${cluster.nodes[1]!.address}=rtt=${SLOW_NODE_RTT_US}us`],
    onEvent: (e) => {
      events.push(e);
      record.onEvent(e);
    },
    argSizes: record.argSizes,
    onLinkChange: record.linkChanged,
    onNodeLinkChange: record.nodeLinkChanged,
    log: () => {},
  })) as RedisRttClusterProxy;
}, 40_000);
afterAll(async () => {
  await proxy?.close();
  await record?.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('proxy --record in cluster mode', () => {
  it('records every node in one trace; analyze counts per node what /stats cluster.nodes counted', async () => {
    const keys = await keyPerMaster(cluster);
    expect(new Set(keys.map((k) => k.masterPort)).size).toBe(3);
    const c = new Cluster([{ host: proxy.host, port: proxy.port }]);
    for (const { key } of keys) await c.set(key, 'v');
    for (const { key } of keys) expect(await c.get(key)).toBe('v');
    const piped = await c.pipeline().get(keys[0]!.key).get(keys[0]!.key).exec();
    expect(piped?.map(([err, v]) => [err, v])).toEqual([[null, 'v'], [null, 'v']]);
    await c.quit();
    // A plain client on the seed's listener asking for a key another node serves: one -MOVED.
    const seedPort = Number(proxy.nodes()[0]!.upstream.split(':')[1]);
    const plain = new Redis({ host: proxy.host, port: proxy.port, maxRetriesPerRequest: 0 });
    await expect(plain.get(keys.find((k) => k.masterPort !== seedPort)!.key)).rejects.toThrow(/^MOVED /);
    await plain.quit();
    await vi.waitUntil(() => {
      const opened = events.filter((e) => e.type === 'open').length;
      return opened > 0 && events.filter((e) => e.type === 'close').length === opened;
    }, { timeout: 5000, interval: 5 });

    const live = proxy.stats().cluster.nodes;
    await record.close();
    const trace = await readTrace(record.path);
    const a = analyzeTrace(trace);

    // Connection ids unique across nodes, and the trace holds every connection the nodes counted.
    const ids = a.connections.map((x) => x.conn);
    expect(new Set(ids).size).toBe(ids.length);
    const used = live.filter((n) => n.connections.total > 0);
    expect(a.totals.connections).toBe(used.reduce((s, n) => s + n.connections.total, 0));
    expect(a.totals.roundTrips).toBe(live.reduce((s, n) => s + n.counters.roundTrips, 0));
    expect(a.totals.commands).toBe(live.reduce((s, n) => s + n.counters.commands, 0));
    expect(a.nodes.map((n) => n.node).sort()).toEqual(used.map((n) => n.upstream).sort());
    for (const n of used) {
      const row = a.nodes.find((r) => r.node === n.upstream)!;
      expect(row, n.upstream).toMatchObject({
        listen: n.listen,
        connections: n.connections.total,
        commands: n.counters.commands,
        roundTrips: n.counters.roundTrips,
        linkRttsUs: [n.linkSettings.upUs + n.linkSettings.downUs],
        redirects: { moved: n.counters.errorsByPrefix.MOVED ?? 0, ask: n.counters.errorsByPrefix.ASK ?? 0 },
      });
    }
    // Each shard served its GET; the slow node's connections paid its link, the others none.
    for (const { masterPort } of keys) expect(a.nodes.find((r) => r.node.endsWith(`:${masterPort}`))!.commands).toBeGreaterThanOrEqual(2);
    expect(a.nodes.find((r) => r.node === cluster.nodes[1]!.address)!.linkRttsUs).toEqual([SLOW_NODE_RTT_US]);
    expect(a.redirects).toEqual({ moved: 1, ask: 0 });
    // The pipeline: one round trip carrying both GETs.
    const rts = buildTimelines(trace.events, trace.header.link, trace.links, trace.nodeLinks).flatMap((t) => t.roundTrips);
    expect(rts.filter((rt) => rt.commands.length === 2 && rt.commands.every((x) => x.name === 'GET'))).toHaveLength(1);

    const text = renderText(a, { file: 'cluster.trace' });
    expect(text).toContain('1 MOVED, 0 ASK redirects: each an extra round trip');
    for (const n of used) expect(text).toMatch(new RegExp(`^  ${n.upstream.replace(/\./g, '\\.')}\\s+${n.listen.replace(/\./g, '\\.')}\\s`, 'm'));
  });
});
