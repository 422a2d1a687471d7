import { Cluster, type Redis } from 'ioredis';
import type { ClientZoneView, RedisRttClusterProxy } from '../cluster-view.js';
import { startProxy } from '../start-proxy.js';
import { ClusterBenchKeys, deleteClusterKeys, checkUserCluster } from './bench-keys.js';
import { clusterSeed } from './cluster-seed.js';
import { clusterBenchReport, type ClusterBenchReport, type ClusterBenchRow } from './cluster-bench.js';
import { sampleShapes, type BoundShape } from './sample-shapes.js';
import { CLUSTER_VALUE, expectReply, waitForReplicas } from './shapes.js';

export interface ClientZoneBenchOptions {
  /** A seed node of the user's cluster; a private 3+3 cluster when absent. */
  upstream?: string;
  /** Apps in zones 1..clientZones, each through its own zone's listeners. */
  clientZones: number;
  /** Zones the nodes are placed in. @default clientZones */
  zones?: number;
  /** GETs per sample. @default 200 */
  n?: number;
  /** Timed samples per shape; the median is reported. @default 3 */
  repeat?: number;
  /** Every key written starts with this; they are deleted by name at the end. @default 'redis-rtt:' */
  keyPrefix?: string;
  /** Run against a `upstream` cluster whose primaries hold keys (refused otherwise). @default false */
  allowNonempty?: boolean;
  /** Aborted (Ctrl-C): stop after the sample in flight and return what finished, marked interrupted. */
  signal?: AbortSignal;
  log?: (line: string) => void;
}


/**
 * `bench --cluster --client-zones N`: one proxy with a listener set per client zone; in each zone an
 * ioredis Cluster on that zone's seed reads (seq GET) from the primaries, then from the replica in
 * its own zone for the shards that have one, and from those shards' primaries for comparison.
 * Round trips per node are the zone's listeners only.
 */
export async function runClientZoneBench(o: ClientZoneBenchOptions): Promise<ClusterBenchReport> {
  const log = o.log ?? (() => {});
  const n = o.n ?? 200;
  const repeat = o.repeat ?? 3;
  const keys = new ClusterBenchKeys(o.keyPrefix);
  if (o.upstream !== undefined) await checkUserCluster(o.upstream, keys.prefix, o.allowNonempty === true);
  const start = await clusterSeed(o.upstream, o.signal);
  if (start === undefined) return clusterBenchReport([], 0, repeat, o.signal);
  const { seed, own } = start;
  const rows: ClusterBenchRow[] = [];
  let nodeCount = 0;
  try {
    const proxy = (await startProxy({ upstream: seed, cluster: 'on', zones: o.zones ?? o.clientZones, clientZones: o.clientZones, log })) as RedisRttClusterProxy;
    try {
      const zones = proxy.clientZones()!;
      nodeCount = zones[0]!.nodes.length;
      for (const z of zones) {
        if (o.signal?.aborted) break;
        rows.push(...(await benchZone(proxy, z, keys.seq, { n, repeat, signal: o.signal, log, deleteKeys: !own })));
      }
    } finally {
      await proxy.close();
    }
  } finally {
    await own?.stop();
  }
  return clusterBenchReport(rows, nodeCount, repeat, o.signal);
}

async function benchZone(
  proxy: RedisRttClusterProxy,
  z: ClientZoneView,
  seqKeys: readonly string[],
  o: { n: number; repeat: number; signal: AbortSignal | undefined; log: (line: string) => void; deleteKeys: boolean },
): Promise<ClusterBenchRow[]> {
  const { n } = o;
  const at = z.seed.lastIndexOf(':');
  const startNode = { host: z.seed.slice(0, at), port: Number(z.seed.slice(at + 1)) };
  const byListen = new Map(z.nodes.map((x) => [x.listen, x]));
  const inZone = (r: Redis): boolean => {
    const v = byListen.get(`${r.options.host}:${r.options.port}`);
    return v?.role === 'replica' && v.zone === z.zone;
  };
  const primaries = new Cluster([startNode], { scaleReads: 'master' });
  // ioredis hands the slot's nodes, primary first; the one in this zone, else the primary.
  const zoneReplica = new Cluster([startNode], { scaleReads: (nodes: Redis[]) => nodes.slice(1).find(inZone) ?? nodes[0]! });
  try {
    for (const k of seqKeys) await primaries.set(k, CLUSTER_VALUE);
    await waitForReplicas(primaries);
    // Keys whose shard has a replica in this zone: the slot map names each slot's listeners.
    const local: string[] = [];
    for (const k of seqKeys) {
      const slot = Number(await primaries.cluster('KEYSLOT', k));
      const replicas = (primaries.slots[slot] ?? []).slice(1).map((key) => byListen.get(key));
      if (replicas.some((v) => v?.zone === z.zone)) local.push(k);
    }
    for (const c of [primaries, zoneReplica]) for (const k of seqKeys.slice(0, 8)) await c.get(k); // connect, warm
    const loop = (c: Cluster, keys: readonly string[]) => async () => {
      for (let i = 0; i < n; i++) expectReply('seq GET', i, await c.get(keys[i % keys.length]!), CLUSTER_VALUE);
    };
    const shapes: BoundShape[] = [{ name: 'seq GET', reads: 'master', run: loop(primaries, seqKeys) }];
    if (local.length > 0) {
      shapes.push({ name: 'seq GET, shards with a zone replica', reads: 'master', run: loop(primaries, local) });
      shapes.push({ name: 'seq GET, shards with a zone replica', reads: 'zone-replica', run: loop(zoneReplica, local) });
    }
    return await sampleShapes(proxy, `client zone ${z.zone}`, shapes, { ...o, clientZone: z.zone });
  } finally {
    // A user's cluster keeps none of the run's keys (a private one goes away whole).
    if (o.deleteKeys) await deleteClusterKeys(primaries, seqKeys).catch((err: unknown) => o.log(`could not delete the run's keys: ${String(err)}`));
    primaries.disconnect();
    zoneReplica.disconnect();
  }
}
