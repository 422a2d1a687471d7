import { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { rawCommands, startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';

/**
 * A cluster that names its nodes by hostname (`cluster-announce-hostname` with
 * `cluster-preferred-endpoint-type hostname`, Redis 7): -MOVED and -ASK then say `localhost:PORT`,
 * while CLUSTER NODES still gives each node's ip next to its hostname. A redirect must name the
 * node's own listener, with the node's link, not a second listener opened for the name.
 */
let cluster: PrivateCluster;
let proxy: RedisRttClusterProxy;
const admin = (port: number, cmds: string[][]) => rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, cmds, 5000);

beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 0 });
  for (const n of cluster.nodes) {
    await admin(n.port, [
      ['CONFIG', 'SET', 'cluster-announce-hostname', 'localhost'],
      ['CONFIG', 'SET', 'cluster-preferred-endpoint-type', 'hostname'],
    ]);
  }
  // Every node has heard every other's hostname by gossip.
  await vi.waitFor(
    async () => {
      for (const n of cluster.nodes) {
        const [r] = await admin(n.port, [['CLUSTER', 'NODES']]);
        expect(r?.text?.trim().split('\n').every((l) => l.split(' ')[1]!.endsWith(',localhost'))).toBe(true);
      }
    },
    { timeout: 10_000, interval: 100 },
  );
  proxy = (await startProxy({ upstream: cluster.address, cluster: 'on', link: { rttUs: 4000 }, log: () => {} })) as RedisRttClusterProxy;
}, 40_000);
afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
});

it('-MOVED naming a node by hostname points to its own listener, and no listener is opened for the name', async () => {
  const nodes = proxy.nodes();
  expect(nodes).toHaveLength(3);
  const [slotReply] = await admin(cluster.nodes[0]!.port, [['CLUSTER', 'KEYSLOT', 'k']]);
  const slot = Number(slotReply!.text);
  // The node that does not serve the key answers -MOVED <slot> localhost:<real port>.
  let moved = '';
  let owner = '';
  for (const n of cluster.nodes) {
    const [r] = await admin(n.port, [['GET', 'k']]);
    if (r?.type === '-') moved = r.text!;
    else owner = `127.0.0.1:${n.port}`;
  }
  expect(moved).toMatch(new RegExp(`^MOVED ${slot} localhost:\\d+$`));
  const ownerListener = nodes.find((n) => n.upstream === owner)!.listen;
  const other = nodes.find((n) => n.upstream !== owner)!;
  const [through] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: Number(other.listen.split(':')[1]) }, [['GET', 'k']], 5000);
  expect(through?.text).toBe(`MOVED ${slot} 127.0.0.1:${ownerListener.split(':')[1]}`);
  expect(proxy.nodes()).toHaveLength(3);
  // A client that follows it pays the node's link: a SET and a GET, each at least one 4 ms round trip.
  const c = new Cluster([{ host: '127.0.0.1', port: Number(other.listen.split(':')[1]) }], { lazyConnect: true });
  try {
    await c.connect();
    const t0 = performance.now();
    await c.set('k', 'v');
    expect(await c.get('k')).toBe('v');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(8);
  } finally {
    c.disconnect();
  }
  expect(proxy.nodes()).toHaveLength(3);
});
