import { median } from '../../numbers/quantiles.js';
import type { RedisRttClusterProxy } from '../cluster-view.js';
import type { ClusterBenchRow } from './cluster-bench.js';
import { READS } from './cluster-table.js';

/** One shape bound to its client and keys: `run()` does `n` operations. */
export interface BoundShape {
  readonly name: string;
  readonly reads: ClusterBenchRow['reads'];
  run(): Promise<void>;
}

/**
 * A warm-up sample of every shape, then `repeat` timed samples with the shapes in rotated order;
 * one row per shape with the median, the range, and the proxy's round trips per node in the
 * median sample (only `clientZone`'s listeners when given). An aborted `signal` stops it after the
 * sample in flight: only the shapes with a timed sample get a row (Ctrl-C reports what finished).
 */
export async function sampleShapes(
  proxy: RedisRttClusterProxy,
  config: string,
  shapes: readonly BoundShape[],
  o: { n: number; repeat: number; clientZone?: number; signal?: AbortSignal; log(line: string): void },
): Promise<ClusterBenchRow[]> {
  const samples = new Map<number, { us: number; rt: number; perNode: ClusterBenchRow['perNode'] }[]>();
  for (let r = 0; r <= o.repeat && !o.signal?.aborted; r++) {
    for (let j = 0; j < shapes.length && !o.signal?.aborted; j++) {
      const i = (j + r) % shapes.length;
      const shape = shapes[i]!;
      proxy.resetStats();
      const t0 = process.hrtime.bigint();
      await shape.run();
      const us = Number(process.hrtime.bigint() - t0) / 1000 / o.n;
      const s = proxy.stats();
      const perNode = s.cluster.nodes
        .filter((x) => o.clientZone === undefined || x.clientZone === o.clientZone)
        .map((x) => ({
          upstream: x.upstream,
          role: x.role,
          zone: x.zone,
          rttUs: x.linkSettings.upUs + x.linkSettings.downUs,
          roundTrips: x.counters.roundTrips,
        }));
      const roundTrips = perNode.reduce((sum, x) => sum + x.roundTrips, 0);
      if (r > 0) samples.set(i, [...(samples.get(i) ?? []), { us, rt: roundTrips, perNode }]);
      o.log(`${config} ${shape.name} (${READS[shape.reads]}) sample ${r === 0 ? 'warm-up' : r}: ${us.toFixed(0)} us/op`);
    }
  }
  return shapes.flatMap((shape, i) => {
    const list = samples.get(i);
    if (list === undefined) return [];
    const us = list.map((x) => x.us);
    const m = median(us);
    const mid = medianSample(list);
    const range = { usPerOpMin: Math.min(...us), usPerOpMax: Math.max(...us) };
    return [{ config, shape: shape.name, reads: shape.reads, n: o.n, samples: list.length, usPerOp: m, ...range, roundTrips: mid.rt, perNode: mid.perNode }];
  });
}

/**
 * The sample whose round trips a row shows: the median one, the lower of the two middle ones for an
 * even count (whose median time is their mean, so no sample has it; the first sample was taken).
 */
export function medianSample<T extends { us: number }>(list: readonly T[]): T {
  const sorted = [...list].sort((a, b) => a.us - b.us);
  return sorted[(sorted.length - 1) >> 1]!;
}
