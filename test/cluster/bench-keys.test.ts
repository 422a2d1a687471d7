/**
 * `bench --cluster --redis SEED` on a user's cluster: refuses one whose primaries hold keys unless
 * allowed, writes only keys under --key-prefix, and leaves none of them behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClusterBench } from '../../src/cluster/bench/cluster-bench.js';
import { runClientZoneBench } from '../../src/cluster/bench/client-zone-bench.js';
import { ConfigError, VerificationError } from '../../src/errors.js';
import { rawCommands, startPrivateCluster, startPrivateRedis, type PrivateCluster } from '../../src/redis/index.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

let cluster: PrivateCluster;
beforeAll(async () => {
  cluster = await startPrivateCluster({ masters: 3, replicasPerMaster: 1 });
}, 40_000);
afterAll(async () => {
  await cluster?.stop();
});

/** Every key on every node (a replica holds its primary's), sorted, duplicates kept once. */
async function allKeys(): Promise<string[]> {
  const lists = await Promise.all(cluster.nodes.map((n) => rawCommands(n.endpoint, [['KEYS', '*']], 5000)));
  return [...new Set(lists.flatMap(([r]) => (r?.items ?? []).map((i) => i.text!)))].sort();
}

/** SET on the primary that owns the key's slot (the others answer MOVED). */
async function setOnOwner(key: string, value: string): Promise<void> {
  for (const n of cluster.nodes) if ((await rawCommands(n.endpoint, [['SET', key, value]]))[0]?.type === '+') return;
  throw new Error(`no node took ${key}`);
}

async function getOnOwner(key: string): Promise<string | null | undefined> {
  for (const n of cluster.nodes) {
    const [r] = await rawCommands(n.endpoint, [['GET', key]]);
    if (r?.type !== '-') return r?.text;
  }
  throw new Error(`no node answered ${key}`);
}

describe('bench --cluster on a user cluster', () => {
  it('refuses a cluster that holds keys; with --allow-nonempty it touches none of the app\'s keys and deletes what it wrote', { timeout: 120_000 }, async () => {
    // The app's keys, among them the names the bench used before it took --key-prefix.
    const mine = ['app:1', 'rtt:key:0', '{rtt:0}:0'];
    for (const key of mine) await setOnOwner(key, 'mine');
    expect(await allKeys()).toEqual([...mine].sort());

    const refused = runClusterBench({ upstream: cluster.address, links: ['rtt=0.1ms'], n: 10, repeat: 1 });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(/--redis: .*an empty cluster: its primaries hold 3 keys\. Pass --allow-nonempty/);

    const report = await runClusterBench({ upstream: cluster.address, links: ['rtt=0.1ms'], n: 20, batch: 5, repeat: 1, allowNonempty: true, log: () => {} });
    expect(report.rows).toHaveLength(6);
    expect(await allKeys()).toEqual([...mine].sort());
    const zones = await runClientZoneBench({ upstream: cluster.address, clientZones: 3, n: 10, repeat: 1, keyPrefix: 'bk:', allowNonempty: true, log: () => {} });
    expect(zones.rows.length).toBeGreaterThanOrEqual(3);
    expect(await allKeys()).toEqual([...mine].sort());
    for (const key of mine) expect(await getOnOwner(key)).toBe('mine');
  });
});

describe('bench --cluster --redis that is no cluster node', () => {
  it('exits 2 naming --redis (it named --cluster with values "on", "auto", "off" that bench does not take, or failed with exit 1)', async () => {
    await using single = await startPrivateRedis();
    for (const extra of [[], ['--allow-nonempty'], ['--client-zones', '2']]) {
      const r = await runCli(['bench', '--cluster', '--redis', single.address, '-n', '5', ...extra]);
      expect({ extra, code: r.code, stdout: r.stdout }).toEqual({ extra, code: 2, stdout: '' });
      expect(r.stderr).toBe(`redis-rtt: --redis: invalid value "${single.address}"; expected a cluster node (INFO cluster says cluster_enabled:0); leave out --cluster for a single Redis\n`);
    }
    const unix = await runCli(['bench', '--cluster', '--redis', 'unix:/tmp/redis-rtt-none.sock', '-n', '5']);
    expect([unix.code, unix.stderr]).toEqual([2, 'redis-rtt: --redis: invalid value "unix:/tmp/redis-rtt-none.sock"; expected host:port of a cluster node (cluster mode needs TCP)\n']);
  }, 60_000);
});

describe('bench --cluster checks every reply', () => {
  it('a value another client wrote under it fails the run, naming the shape and the command, instead of timing it', { timeout: 60_000 }, async () => {
    // Another client keeps overwriting one of the run's keys: its GETs read "x", not the "v" written.
    let stop = false;
    const other = (async () => {
      while (!stop) await setOnOwner('chk:key:0', 'x');
    })();
    try {
      const run = runClusterBench({ upstream: cluster.address, links: ['local'], n: 64, repeat: 1, keyPrefix: 'chk:', allowNonempty: true, log: () => {} });
      await expect(run).rejects.toThrow(VerificationError);
      await expect(run).rejects.toThrow(/^seq GET( \(replicas\))?: command 1: "x", expected "v"$/);
    } finally {
      stop = true;
      await other;
      for (const n of cluster.nodes) await rawCommands(n.endpoint, [['DEL', 'chk:key:0']]);
    }
  });
});
