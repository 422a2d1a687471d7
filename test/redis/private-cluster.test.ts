import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { rawCommands, startPrivateCluster, type PrivateCluster } from '../../src/redis/index.js';
import { waitClusterReady } from '../../src/redis/private-cluster.js';
import { trackedCount } from '../../src/redis/tracked-children.js';

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('startPrivateCluster', () => {
  let cluster: PrivateCluster;
  const trackedBefore = trackedCount();
  beforeAll(async () => {
    cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 1 });
  }, 30_000);
  afterAll(() => cluster?.stop());

  it('starts 3 primaries and 3 replicas covering every slot, bus ports explicit and below 65536', async () => {
    expect(cluster.nodes).toHaveLength(6);
    expect(cluster.address).toBe(cluster.nodes[0]!.address);
    for (const n of cluster.nodes) {
      const [info, conf, nodes, slots] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: n.port }, [
        ['CLUSTER', 'INFO'],
        ['CONFIG', 'GET', 'cluster-port'],
        ['CLUSTER', 'NODES'],
        ['CLUSTER', 'SLOTS'],
      ]);
      expect(info?.text).toMatch(/cluster_state:ok/);
      expect(info?.text).toMatch(/cluster_slots_assigned:16384\b/);
      expect(info?.text).toMatch(/cluster_known_nodes:6\b/);
      expect(conf?.items?.[1]?.text).toBe(String(n.busPort));
      expect(n.busPort).toBeLessThan(65536);
      // Replicas listed too (a client with scaleReads needs them from the start).
      expect(slots?.items?.map((r) => (r.items?.length ?? 0) - 2)).toEqual([2, 2, 2]);
      const lines = (nodes?.text ?? '').trim().split('\n');
      const roles = lines.map((l) => (l.split(' ')[2]!.includes('master') ? 'master' : 'replica'));
      expect(roles.filter((r) => r === 'master')).toHaveLength(3);
      expect(roles.filter((r) => r === 'replica')).toHaveLength(3);
      // Every node line names the bus port we chose, not port+10000.
      for (const l of lines) {
        const [, port, bus] = /127\.0\.0\.1:(\d+)@(\d+)/.exec(l)!;
        expect(cluster.nodes.find((x) => x.port === Number(port))?.busPort).toBe(Number(bus));
      }
    }
  });

  it('the wait has a node that lacks one MEET it (a forgotten node is kept out of gossip for 60 s)', async () => {
    const role = async (n: (typeof cluster.nodes)[number]): Promise<string> => (await rawCommands(n.endpoint, [['ROLE']]))[0]!.items![0]!.text!;
    const roles = await Promise.all(cluster.nodes.map(role));
    // A primary forgets a replica (a replica may not forget its own primary, and a forgotten primary's slots would
    // leave the cluster not ok on that node).
    const a = cluster.nodes[roles.indexOf('master')]!;
    const b = cluster.nodes[roles.indexOf('slave')]!;
    const [bId] = await rawCommands(b.endpoint, [['CLUSTER', 'MYID']]);
    const [forgot] = await rawCommands(a.endpoint, [['CLUSTER', 'FORGET', bId!.text!]]);
    expect(forgot?.text).toBe('OK');
    const known = async (): Promise<string> => /cluster_known_nodes:(\d+)/.exec((await rawCommands(a.endpoint, [['CLUSTER', 'INFO']]))[0]!.text!)![1]!;
    expect(await known()).toBe('5');
    const startMs = Date.now();
    await waitClusterReady(cluster.nodes, 3, 1, 15_000);
    expect(await known()).toBe('6');
    // Gossip had its 3 s first; the MEET came after.
    expect(Date.now() - startMs).toBeGreaterThanOrEqual(3000);
  }, 20_000);

  it('stop() (and Symbol.asyncDispose) ends every node and removes every temp dir', async () => {
    const pids = cluster.nodes.map((n) => n.server.pid);
    const dirs = await Promise.all(
      cluster.nodes.map(async (n) => {
        const [r] = await rawCommands({ kind: 'tcp', host: '127.0.0.1', port: n.port }, [['CONFIG', 'GET', 'dir']]);
        return r!.items![1]!.text!;
      }),
    );
    for (const d of dirs) expect(existsSync(`${d}/nodes.conf`)).toBe(true);
    await cluster[Symbol.asyncDispose](); // what `await using` calls
    await cluster.stop(); // idempotent
    for (const pid of pids) expect(alive(pid)).toBe(false);
    for (const d of dirs) expect(existsSync(dirname(`${d}/x`))).toBe(false);
    expect(trackedCount()).toBe(trackedBefore);
  });

  it('refuses fewer than 3 primaries before starting anything', async () => {
    // An option, not a server that failed to start.
    await expect(startPrivateCluster({ masters: 2 })).rejects.toThrow(ConfigError);
    await expect(startPrivateCluster({ masters: 2 })).rejects.toThrow(/at least 3/);
  });
});
