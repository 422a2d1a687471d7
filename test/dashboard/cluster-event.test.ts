/**
 * The dashboard's event in cluster mode (docs/dashboard.md): the proxy's own `self` figures, over
 * every node (they share one event loop and one monitor, docs/cluster.md#counters), and a row per
 * node with its own rates. The page's docs said cluster mode had no `self` to show.
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/cluster/start-proxy.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';
import { openEvents } from './events-client.js';

let cluster: PrivateCluster;
let proxy: RedisRttProxy;

beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 0 });
  proxy = await startProxy({ upstream: cluster.address, cluster: 'on', listen: '127.0.0.1:0', control: '127.0.0.1:0', link: { rttUs: 200 }, log: () => {} });
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
});
