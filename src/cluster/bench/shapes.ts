import type { Cluster } from 'ioredis';
import type { ClusterBenchKeys } from './bench-keys.js';

/**
 * The cluster bench's shapes, each `n` operations on an ioredis Cluster client. Keys spread over
 * every slot owner except in the MGET/MSET shapes, which use one hash tag per batch (a multi-key
 * command must stay in one slot).
 */
export interface ClusterShape {
  readonly name: string;
  /** Where reads go: ioredis scaleReads. */
  readonly reads: 'master' | 'slave';
  run(c: Cluster, keys: ClusterBenchKeys, n: number, batch: number): Promise<void>;
}

export const CLUSTER_SHAPES: readonly ClusterShape[] = [
  {
    name: 'seq SET',
    reads: 'master',
    run: async (c, { seq }, n) => {
      for (let i = 0; i < n; i++) await c.set(seq[i % seq.length]!, 'v');
    },
  },
  {
    name: 'seq GET',
    reads: 'master',
    run: async (c, { seq }, n) => {
      for (let i = 0; i < n; i++) await c.get(seq[i % seq.length]!);
    },
  },
  {
    name: 'seq GET',
    reads: 'slave',
    run: async (c, { seq }, n) => {
      for (let i = 0; i < n; i++) await c.get(seq[i % seq.length]!);
    },
  },
  {
    // ioredis's Cluster auto-pipelining batches per node: the client splits the pipeline.
    name: 'pipeline SET',
    reads: 'master',
    run: async (c, { seq }, n, batch) => {
      for (let done = 0; done < n; done += batch) {
        await Promise.all(Array.from({ length: Math.min(batch, n - done) }, (_, i) => c.set(seq[(done + i) % seq.length]!, 'v')));
      }
    },
  },
  {
    name: 'MSET {tag}',
    reads: 'master',
    run: async (c, keys, n, batch) => {
      for (let done = 0, b = 0; done < n; done += batch, b++) {
        const args: string[] = [];
        for (let i = 0; i < Math.min(batch, n - done); i++) args.push(keys.tagged(b, i), 'v');
        await c.mset(...args);
      }
    },
  },
  {
    name: 'MGET {tag}',
    reads: 'master',
    run: async (c, keys, n, batch) => {
      for (let done = 0, b = 0; done < n; done += batch, b++) {
        await c.mget(...Array.from({ length: Math.min(batch, n - done) }, (_, i) => keys.tagged(b, i)));
      }
    },
  },
];
