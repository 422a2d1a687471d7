import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { rawCommands, startPrivateCluster, startPrivateRedis, type PrivateCluster, type PrivateRedis } from '../../src/redis/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import type { ClusterStats, RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { controlRequest } from '../hardening/helpers/http.js';
import { promtoolCheck } from '../helpers/promtool.js';
import { oneHeldOneRefused } from './helpers.js';

let cluster: PrivateCluster;
let redis: PrivateRedis;
let p: RedisRttClusterProxy;
let single: RedisRttProxy;
beforeAll(async () => {
  [cluster, redis] = await Promise.all([startPrivateCluster({ masters: 3, replicasPerMaster: 0 }), startPrivateRedis()]);
  const common = { compensationUs: { up: 0, down: 0 }, control: '127.0.0.1:0', log: () => {} };
  p = (await startProxy({ upstream: cluster.address, cluster: 'on', ...common })) as RedisRttClusterProxy;
  single = (await startProxy({ upstream: redis.address, ...common })) as RedisRttProxy;
}, 30_000);
afterAll(async () => {
  await Promise.all([p?.close(), single?.close()]);
  await Promise.all([cluster?.stop(), redis?.stop()]);
});

interface NodeStats {
  upstream: string;
  role: string;
  stats: { totals: { commands: number }; commands: Record<string, { count: number }> };
}

describe('GET /stats?node=SELECTOR', () => {
  it("on a cluster answers the chosen nodes' own snapshots, as GET /link?node= their links (the selector was ignored)", async () => {
    const [one, ...others] = p.nodes();
    const [host, port] = one!.listen.split(':');
    await rawCommands({ kind: 'tcp', host: host!, port: Number(port) }, [['PING'], ['PING'], ['ECHO', 'x']], 5000);
    const res = await controlRequest(p.controlAddress!, 'GET', `/stats?node=${one!.upstream}`);
    expect(res.status).toBe(200);
    const { nodes } = JSON.parse(res.body) as { nodes: NodeStats[] };
    const counts = nodes.map((n) => [n.upstream, n.stats.totals.commands, n.stats.commands.PING?.count, n.stats.commands.ECHO?.count]);
    expect(counts).toEqual([[one!.upstream, 3, 2, 1]]);
    const rest = JSON.parse((await controlRequest(p.controlAddress!, 'GET', '/stats?node=masters')).body) as { nodes: NodeStats[] };
    expect(rest.nodes.map((n) => n.upstream).sort()).toEqual([one!, ...others].map((n) => n.upstream).sort());
    for (const n of rest.nodes) expect(n.stats.totals.commands).toBe(n.upstream === one!.upstream ? 3 : 0);
    // Without ?node= the whole cluster's snapshot, as before.
    expect(JSON.parse((await controlRequest(p.controlAddress!, 'GET', '/stats')).body)).toMatchObject({ totals: { commands: 3 }, cluster: { nodes: expect.any(Array) } });
  });

  it('a selector that picks no node, or an empty one, is 400 as on /link', async () => {
    for (const q of ['nosuchnode:1', '']) {
      const res = await controlRequest(p.controlAddress!, 'GET', `/stats?node=${q}`);
      expect([res.status, (JSON.parse(res.body) as { error: string }).error]).toEqual([400, expect.stringMatching(/^node: invalid value .*; expected a selector that picks at least one node/)]);
    }
  });

  it('a single-node proxy refuses it as it refuses /link?node=', async () => {
    const res = await controlRequest(single.controlAddress!, 'GET', '/stats?node=masters');
    expect([res.status, JSON.parse(res.body)]).toEqual([400, { error: '?node= picks nodes in cluster and Sentinel mode; this proxy has one link (got node=masters)' }]);
  });

  it('the routes that are always the whole proxy\'s refuse ?node= rather than ignore it (POST /reset?node= zeroed every node)', async () => {
    for (const [method, path] of [['POST', '/reset'], ['GET', '/metrics'], ['GET', '/connections']] as const) {
      for (const at of [p.controlAddress!, single.controlAddress!]) {
        const res = await controlRequest(at, method, `${path}?node=masters`);
        expect([res.status, JSON.parse(res.body)]).toEqual([400, { error: `?node= is not taken by ${method} ${path}; it picks nodes on GET /stats and GET or PUT /link` }]);
      }
    }
    expect(p.stats().totals.commands).toBe(3);
  });
});

describe('--max-connections with --client-zones', () => {
  it('/stats and /metrics count the refused clients per node listener, per client zone and in the totals', async () => {
    const capped = (await startProxy({
      ...{ upstream: cluster.address, cluster: 'on', zones: 2, clientZones: 2, maxConnections: 1 },
      ...{ compensationUs: { up: 0, down: 0 }, control: '127.0.0.1:0', log: () => {} },
    })) as RedisRttClusterProxy;
    let held: net.Socket | undefined;
    try {
      // A node other than the seed, on zone 2's listener: one client in, the next refused.
      const node = capped.clientZones()![1]!.nodes[1]!;
      held = await oneHeldOneRefused(Number(node.listen.split(':')[1]));
      await vi.waitFor(() => expect(capped.stats().connections.refused).toBe(1), { timeout: 5000, interval: 20 });
      const stats = JSON.parse((await controlRequest(capped.controlAddress!, 'GET', '/stats')).body) as ClusterStats;
      const refused = stats.cluster.nodes.map((n) => [n.upstream, n.clientZone, n.connections.refused]);
      expect(refused).toEqual(stats.cluster.nodes.map((n) => [n.upstream, n.clientZone, n.upstream === node.upstream && n.clientZone === 2 ? 1 : 0]));
      expect(stats.cluster.clientZones!.map((z) => [z.zone, z.connections.refused])).toEqual([
        [1, 0],
        [2, 1],
      ]);
      const metrics = (await controlRequest(capped.controlAddress!, 'GET', '/metrics')).body;
      expect(metrics).toMatch(/^redis_rtt_connections_refused_total 1$/m);
      expect(metrics.match(/^redis_rtt_node_connections_refused_total\{.* 1$/gm)).toEqual([
        `redis_rtt_node_connections_refused_total{node="${node.upstream}",client_zone="2"} 1`,
      ]);
      expect(metrics.match(/^redis_rtt_node_connections_refused_total\{/gm)).toHaveLength(stats.cluster.nodes.length);
      expect(promtoolCheck(metrics)).toEqual({ status: 0, output: '' });
    } finally {
      held?.destroy();
      await capped.close();
    }
  });
});
