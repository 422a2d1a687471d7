/**
 * The dashboard's event in cluster mode (docs/dashboard.md): the proxy's own `self` figures, over
 * every node (they share one event loop and one monitor, docs/cluster.md#counters), and a row per
 * node with its own rates. The page's docs said cluster mode had no `self` to show. And /metrics
 * per node: it had the totals and the seed's link alone.
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/cluster/start-proxy.js';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';
import { openEvents } from './events-client.js';

let cluster: PrivateCluster;
let proxy: RedisRttProxy;

beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 0 });
  proxy = await startProxy({
    upstream: cluster.address,
    cluster: 'on',
    listen: '127.0.0.1:0',
    control: '127.0.0.1:0',
    link: { rttUs: 200 },
    nodeLinks: [`${cluster.nodes[2]!.address}=rtt=2ms`],
    log: () => {},
  });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
});

describe('the dashboard event of a cluster proxy', () => {
  it("has the proxy's self figures and each node's rates", async () => {
    const events = await openEvents(proxy.controlAddress!);
    const client = new Cluster([{ host: proxy.host!, port: proxy.port! }], { lazyConnect: true });
    try {
      await client.connect();
      for (let i = 0; i < 60; i++) await client.set(`dash:${i}`, 'v');
      const e = await events.next((ev) => (ev.self?.roundTripAddedUs.count ?? 0) > 0 && (ev.nodes ?? []).some((n) => n.rates.commands > 0));
      expect(e.nodes).toHaveLength(3);
      expect(e.self!.addedUs.count).toBeGreaterThanOrEqual(e.self!.roundTripAddedUs.count);
      expect(e.self!.lateUs.count).toBeGreaterThan(0);
    } finally {
      client.disconnect();
      events.req.destroy();
    }
  });

  it("/metrics has each node's counts and link, labelled by its address", async () => {
    const client = new Cluster([{ host: proxy.host!, port: proxy.port! }], { lazyConnect: true });
    try {
      await client.connect();
      for (let i = 0; i < 30; i++) await client.set(`metrics:${i}`, 'v');
    } finally {
      client.disconnect();
    }
    const text = await (await fetch(`http://${proxy.controlAddress}/metrics`)).text();
    const stats = (proxy as RedisRttClusterProxy).stats();
    const sample = (name: string, labels: string): number => Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(stats.cluster.nodes).toHaveLength(3);
    for (const n of stats.cluster.nodes) {
      const node = `node="${n.upstream}"`;
      expect(sample('redis_rtt_node_commands_total', node), n.upstream).toBe(n.counters.commands);
      expect(sample('redis_rtt_node_bytes_total', `${node},direction="down"`), n.upstream).toBe(n.counters.bytesDown);
      expect(sample('redis_rtt_node_connections_total', node), n.upstream).toBe(n.connections.total);
      expect(sample('redis_rtt_node_link_up_delay_seconds', node), n.upstream).toBe(n.linkSettings.upUs / 1e6);
    }
    // The node on its own link shows it; the top-level gauge is the seed's.
    expect(sample('redis_rtt_node_link_down_delay_seconds', `node="${cluster.nodes[2]!.address}"`)).toBe(0.001);
    expect(text).toMatch(/^# TYPE redis_rtt_node_commands_total counter$/m);
  });
});
