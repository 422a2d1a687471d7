import { Cluster } from 'ioredis';
import type { RedisRttClusterProxy } from '../cluster-view.js';
import { startProxy } from '../start-proxy.js';
import { startPrivateCluster, type PrivateCluster } from '../../redis/private-cluster.js';
import { median } from '../../numbers/quantiles.js';
import { CLUSTER_SHAPES } from './shapes.js';
import { parseLinkSpec } from '../../link/link-spec.js';
import { ConfigError } from '../../errors.js';

/** Every node gets this link (direct would mean no proxy: a cluster client then needs no rewriting). */
function clusterLink(spec: string) {
  const l = parseLinkSpec(spec, '--links');
  if (l.direct) throw new ConfigError('--links', spec, 'a preset or rtt=.. spec per configuration (bench --cluster always goes through the proxy)');
  return l.update;
}

export interface ClusterBenchOptions {
  /** A seed node of the user's cluster; a private 3+3 cluster when absent. */
  upstream?: string;
  /** Links to compare (a preset or spec each); ignored with `zones`. @default ['cross-az'] */
  links?: string[];
  /** Place the nodes in zones (same-az in zone 1, cross-az elsewhere) instead of one link for all. */
  zones?: number;
  /** Operations per shape and sample. @default 200 */
  n?: number;
  /** Commands per MSET / MGET / auto-pipelined batch. @default 20 */
  batch?: number;
  /** Timed samples per shape, in rotated order; the median is reported. @default 3 */
  repeat?: number;
  log?: (line: string) => void;
}

export interface ClusterBenchRow {
  config: string;
  shape: string;
  reads: 'master' | 'slave';
  n: number;
  /** Median over the samples, and the range. */
  usPerOp: number;
  usPerOpMin: number;
  usPerOpMax: number;
  /** Round trips the proxy counted for one sample, in total and per node (median sample). */
  roundTrips: number;
  perNode: { upstream: string; role: string; zone: number | null; rttUs: number; roundTrips: number }[];
}

export interface ClusterBenchReport {
  rows: ClusterBenchRow[];
  nodes: number;
}

/**
 * ioredis's Cluster client through the per-node links: every shape on every configuration, a
 * warm-up sample first, then `repeat` timed samples with the shapes in rotated order.
 */
export async function runClusterBench(o: ClusterBenchOptions = {}): Promise<ClusterBenchReport> {
  const log = o.log ?? (() => {});
  const n = o.n ?? 200;
  const batch = o.batch ?? 20;
  const repeat = o.repeat ?? 3;
  let own: PrivateCluster | undefined;
  const seed = o.upstream ?? (own = await startPrivateCluster({})).address;
  const configs = o.zones !== undefined ? [{ name: `zones=${o.zones}`, extra: { zones: o.zones } }] : (o.links ?? ['cross-az']).map((l) => ({ name: l, extra: { link: clusterLink(l) } }));
  const rows: ClusterBenchRow[] = [];
  let nodeCount = 0;
  try {
    for (const cfg of configs) {
      const proxy = (await startProxy({ upstream: seed, cluster: 'on', log, ...cfg.extra })) as RedisRttClusterProxy;
      nodeCount = proxy.nodes().length;
      const clients = { master: new Cluster([{ host: proxy.host!, port: proxy.port! }], { scaleReads: 'master', enableAutoPipelining: true }), slave: new Cluster([{ host: proxy.host!, port: proxy.port! }], { scaleReads: 'slave', enableAutoPipelining: true }) };
      try {
        const keys = Array.from({ length: 64 }, (_, i) => `rtt:key:${i}`);
        for (const k of keys) await clients.master.set(k, 'v');
        for (const c of Object.values(clients)) for (const k of keys.slice(0, 8)) await c.get(k); // connect to every node, warm
        const samples = new Map<number, { us: number; rt: number; perNode: ClusterBenchRow['perNode'] }[]>();
        for (let r = 0; r <= repeat; r++) {
          for (let j = 0; j < CLUSTER_SHAPES.length; j++) {
            const i = (j + r) % CLUSTER_SHAPES.length;
            const shape = CLUSTER_SHAPES[i]!;
            proxy.resetStats();
            const t0 = process.hrtime.bigint();
            await shape.run(clients[shape.reads], keys, n, batch);
            const us = Number(process.hrtime.bigint() - t0) / 1000 / n;
            const s = proxy.stats();
            const perNode = s.cluster.nodes.map((x) => ({
              upstream: x.upstream,
              role: x.role,
              zone: x.zone,
              rttUs: x.linkSettings.upUs + x.linkSettings.downUs,
              roundTrips: x.counters.roundTrips,
            }));
            if (r > 0) samples.set(i, [...(samples.get(i) ?? []), { us, rt: s.totals.roundTrips, perNode }]);
            log(`${cfg.name} ${shape.name} (${shape.reads}) sample ${r === 0 ? 'warm-up' : r}: ${us.toFixed(0)} us/op`);
          }
        }
        CLUSTER_SHAPES.forEach((shape, i) => {
          const list = samples.get(i)!;
          const m = median(list.map((x) => x.us));
          const mid = list.find((x) => x.us === m) ?? list[0]!;
          const us = list.map((x) => x.us);
          const range = { usPerOpMin: Math.min(...us), usPerOpMax: Math.max(...us) };
          rows.push({ config: cfg.name, shape: shape.name, reads: shape.reads, n, usPerOp: m, ...range, roundTrips: mid.rt, perNode: mid.perNode });
        });
      } finally {
        for (const c of Object.values(clients)) c.disconnect();
        await proxy.close();
      }
    }
  } finally {
    await own?.stop();
  }
  return { rows, nodes: nodeCount };
}
