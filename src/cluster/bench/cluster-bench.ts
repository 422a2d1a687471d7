import { Cluster } from 'ioredis';
import type { RedisRttClusterProxy } from '../cluster-view.js';
import { startProxy } from '../start-proxy.js';
import { ClusterBenchKeys, deleteClusterKeys, checkUserCluster } from './bench-keys.js';
import { clusterSeed } from './cluster-seed.js';
import { interruptedMark, type StopSignalName } from '../../results/interrupted.js';
import { CLUSTER_SHAPES, CLUSTER_VALUE, waitForReplicas } from './shapes.js';
import { sampleShapes } from './sample-shapes.js';
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
  /** Every key written starts with this; they are deleted by name at the end. @default 'redis-rtt:' */
  keyPrefix?: string;
  /** Run against a `upstream` cluster whose primaries hold keys (refused otherwise). @default false */
  allowNonempty?: boolean;
  /** Aborted (Ctrl-C): stop after the sample in flight and return what finished, marked interrupted. */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface ClusterBenchRow {
  config: string;
  shape: string;
  /** Primaries, any replica (ioredis scaleReads 'slave'), or the replica in the client's own zone (--client-zones). */
  reads: 'master' | 'slave' | 'zone-replica';
  n: number;
  /** Timed samples behind the median: `repeat`, fewer when the run was interrupted. */
  samples: number;
  /** Median over the samples, and the range. */
  usPerOp: number;
  usPerOpMin: number;
  usPerOpMax: number;
  /** Round trips the proxy counted for one sample, in total and per node (median sample). */
  roundTrips: number;
  perNode: { upstream: string; role: string; zone: number | null; rttUs: number; roundTrips: number }[];
}

export interface ClusterBenchReport {
  /** One per shape and configuration with a timed sample (an interrupted run has fewer). */
  rows: ClusterBenchRow[];
  nodes: number;
  /** Timed samples asked for per row (`repeat`): a row of an interrupted run has fewer. */
  repeat: number;
  /** Stopped (Ctrl-C, SIGTERM, SIGHUP): the rows are what finished. */
  interrupted?: true;
  /** The signal that stopped it, when one did (the CLI's stop: the abort's reason). */
  stoppedBy?: StopSignalName;
}

/** The report of what finished; marked interrupted when `signal` was aborted, with the signal that did it. */
export function clusterBenchReport(rows: ClusterBenchRow[], nodes: number, repeat: number, signal: AbortSignal | undefined): ClusterBenchReport {
  return { rows, nodes, repeat, ...interruptedMark(signal) };
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
  const keys = new ClusterBenchKeys(o.keyPrefix);
  if (o.upstream !== undefined) await checkUserCluster(o.upstream, keys.prefix, o.allowNonempty === true);
  // Before the private cluster starts: a bad link thrown after it left the cluster running, and the CLI hung.
  const configs = o.zones !== undefined ? [{ name: `zones=${o.zones}`, extra: { zones: o.zones } }] : [...new Set((o.links ?? ['cross-az']).map((l) => l.trim()))].map((l) => ({ name: l, extra: { link: clusterLink(l) } }));
  const start = await clusterSeed(o.upstream, o.signal);
  if (start === undefined) return clusterBenchReport([], 0, repeat, o.signal);
  const { seed, own } = start;
  const rows: ClusterBenchRow[] = [];
  let nodeCount = 0;
  try {
    for (const cfg of configs) {
      if (o.signal?.aborted) break;
      const proxy = (await startProxy({ upstream: seed, cluster: 'on', log, ...cfg.extra })) as RedisRttClusterProxy;
      nodeCount = proxy.nodes().length;
      const clients = { master: new Cluster([{ host: proxy.host!, port: proxy.port! }], { scaleReads: 'master', enableAutoPipelining: true }), slave: new Cluster([{ host: proxy.host!, port: proxy.port! }], { scaleReads: 'slave', enableAutoPipelining: true }) };
      try {
        for (const k of keys.seq) await clients.master.set(k, CLUSTER_VALUE);
        await waitForReplicas(clients.master);
        for (const c of Object.values(clients)) for (const k of keys.seq.slice(0, 8)) await c.get(k); // connect to every node, warm
        const bound = CLUSTER_SHAPES.map((shape) => ({ name: shape.name, reads: shape.reads, run: () => shape.run(clients[shape.reads], keys, n, batch) }));
        rows.push(...(await sampleShapes(proxy, cfg.name, bound, { n, repeat, signal: o.signal, log })));
      } finally {
        // A user's cluster keeps none of the run's keys (a private one goes away whole).
        if (!own) await deleteClusterKeys(clients.master, keys.all(batch)).catch((err: unknown) => log(`could not delete the run's keys: ${String(err)}`));
        for (const c of Object.values(clients)) c.disconnect();
        await proxy.close();
      }
    }
  } finally {
    await own?.stop();
  }
  return clusterBenchReport(rows, nodeCount, repeat, o.signal);
}
