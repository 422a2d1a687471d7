import net from 'node:net';
import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { RedisRttClusterProxy } from '../../src/cluster/cluster-view.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { rawCommands, startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';
import { directClients, untilPong } from './helpers.js';

/**
 * A cluster whose nodes announce hostnames only the cluster knows (`cluster-announce-hostname`,
 * `.invalid`: they resolve nowhere, so a client that follows one has left the proxy). Every
 * topology reply through the proxy must name listeners only, the hostname fields included: a
 * client that prefers a node's hostname (Lettuce reads it from CLUSTER NODES; CLUSTER SHARDS and
 * SLOTS carry it too) must reach the node's listener, not the real node.
 */
const DOMAIN = 'redis-rtt.invalid';
let cluster: PrivateCluster;
let proxy: RedisRttClusterProxy;
const admin = (port: number, cmds: string[][]) => rawCommands({ kind: 'tcp', host: '127.0.0.1', port }, cmds, 5000);

beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 0 });
  for (const [i, n] of cluster.nodes.entries()) {
    await admin(n.port, [
      ['CONFIG', 'SET', 'cluster-announce-hostname', `n${i}.${DOMAIN}`],
      ['CONFIG', 'SET', 'cluster-preferred-endpoint-type', 'hostname'],
    ]);
  }
  // Every node has heard every other's hostname by gossip.
  await vi.waitFor(
    async () => {
      for (const n of cluster.nodes) {
        const [r] = await admin(n.port, [['CLUSTER', 'NODES']]);
        expect(r?.text?.trim().split('\n').every((l) => l.split(' ')[1]!.endsWith(`.${DOMAIN}`))).toBe(true);
      }
    },
    { timeout: 10_000, interval: 100 },
  );
  proxy = (await startProxy({ upstream: cluster.address, cluster: 'on', log: () => {} })) as RedisRttClusterProxy;
}, 40_000);
afterAll(async () => {
  await proxy?.close();
  await cluster?.stop();
});

it('CLUSTER NODES, SLOTS and SHARDS name no real hostname, in RESP2 and RESP3, whichever endpoint type Redis prefers', async () => {
  // `ip`: SLOTS gives the ip as endpoint and the hostname in its metadata; `hostname`: the other way round.
  for (const endpointType of ['ip', 'hostname']) {
    for (const n of cluster.nodes) await admin(n.port, [['CONFIG', 'SET', 'cluster-preferred-endpoint-type', endpointType]]);
    for (const proto of ['2', '3']) {
      const cmds = [['HELLO', proto], ['CLUSTER', 'NODES'], ['CLUSTER', 'SLOTS'], ['CLUSTER', 'SHARDS'], ['PING']];
      const out = await untilPong(net.connect({ host: proxy.host!, port: proxy.port! }), cmds);
      expect(out).toContain('connected');
      if (endpointType === 'ip' && proto === '3') expect(out).toContain('hostname');
      const at = out.indexOf(DOMAIN);
      expect(at < 0 ? '' : out.slice(Math.max(0, at - 120), at + 40), `${endpointType}, RESP${proto}`).toBe('');
    }
  }
});

it("CLUSTER NODES: a client that dials each line's hostname:port (as Lettuce does) reaches that node's listener", async () => {
  const listeners = new Set(proxy.nodes().map((n) => n.listen));
  const [r] = await rawCommands({ kind: 'tcp', host: proxy.host!, port: proxy.port! }, [['CLUSTER', 'NODES']], 5000);
  const lines = r!.text!.trim().split('\n');
  expect(lines).toHaveLength(3);
  for (const line of lines) {
    // <id> <ip:port@cport,hostname> ...: the port from ip:port, the host from the hostname.
    const [addr, hostname] = line.split(' ')[1]!.split(',') as [string, string];
    const port = Number(addr.slice(addr.lastIndexOf(':') + 1, addr.indexOf('@')));
    expect(listeners.has(`${hostname}:${port}`), line).toBe(true);
    const [pong] = await rawCommands({ kind: 'tcp', host: hostname, port }, [['PING']], 5000);
    expect(pong?.text).toBe('PONG');
  }
});

it('ioredis Cluster and node-redis createCluster, with no address mapping, work through the listeners only', async () => {
  const io = new Cluster([{ host: proxy.host, port: proxy.port }]);
  try {
    for (let i = 0; i < 30; i++) await io.set(`io:${i}`, String(i));
    for (let i = 0; i < 30; i++) expect(await io.get(`io:${i}`)).toBe(String(i));
  } finally {
    io.disconnect();
  }
  const nr = createCluster({ rootNodes: [{ url: `redis://${proxy.host}:${proxy.port}` }] });
  nr.on('error', () => {});
  await nr.connect();
  try {
    for (let i = 0; i < 30; i++) await nr.set(`nr:${i}`, String(i));
    for (let i = 0; i < 30; i++) expect(await nr.get(`nr:${i}`)).toBe(String(i));
  } finally {
    await nr.close();
  }
  expect(await directClients(cluster, proxy)).toEqual([]);
  expect(proxy.nodes()).toHaveLength(3);
});
