import type { Cluster } from 'ioredis';
import { VerificationError } from '../../errors.js';
import { describe } from '../../workload/verify.js';
import type { ClusterBenchKeys } from './bench-keys.js';

/** What every key the cluster bench writes holds. */
export const CLUSTER_VALUE = 'v';

/**
 * Every reply is checked, as the single-node bench's are: a reply that is not what was written
 * (another client's value, a reply meant for another command) fails the run instead of timing it.
 */
export function expectReply(shape: string, i: number, got: unknown, want: string): void {
  if (got !== want) throw new VerificationError(`${shape}: command ${i + 1}: ${describe(got)}, expected ${describe(want)}`, i + 1);
}

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

/** Replica reads must find the keys just written: WAIT on each primary's connection (the one the writes took) for a replica. */
export async function waitForReplicas(c: Cluster): Promise<void> {
  if (c.nodes('slave').length === 0) return;
  await Promise.all(c.nodes('master').map((node) => node.wait(1, 2000)));
}

export const CLUSTER_SHAPES: readonly ClusterShape[] = [
  {
    name: 'seq SET',
    reads: 'master',
    run: async (c, { seq }, n) => {
      for (let i = 0; i < n; i++) expectReply('seq SET', i, await c.set(seq[i % seq.length]!, CLUSTER_VALUE), 'OK');
    },
  },
  {
    name: 'seq GET',
    reads: 'master',
    run: async (c, { seq }, n) => {
      for (let i = 0; i < n; i++) expectReply('seq GET', i, await c.get(seq[i % seq.length]!), CLUSTER_VALUE);
    },
  },
  {
    name: 'seq GET',
    reads: 'slave',
    run: async (c, { seq }, n) => {
      for (let i = 0; i < n; i++) expectReply('seq GET (replicas)', i, await c.get(seq[i % seq.length]!), CLUSTER_VALUE);
    },
  },
  {
    // ioredis's Cluster auto-pipelining batches per node: the client splits the pipeline.
    name: 'pipeline SET',
    reads: 'master',
    run: async (c, { seq }, n, batch) => {
      for (let done = 0; done < n; done += batch) {
        const replies = await Promise.all(Array.from({ length: Math.min(batch, n - done) }, (_, i) => c.set(seq[(done + i) % seq.length]!, CLUSTER_VALUE)));
        replies.forEach((r, i) => expectReply('pipeline SET', done + i, r, 'OK'));
      }
    },
  },
  {
    name: 'MSET {tag}',
    reads: 'master',
    run: async (c, keys, n, batch) => {
      for (let done = 0, b = 0; done < n; done += batch, b++) {
        const args: string[] = [];
        for (let i = 0; i < Math.min(batch, n - done); i++) args.push(keys.tagged(b, i), CLUSTER_VALUE);
        expectReply('MSET {tag}', done, await c.mset(...args), 'OK');
      }
    },
  },
  {
    name: 'MGET {tag}',
    reads: 'master',
    run: async (c, keys, n, batch) => {
      for (let done = 0, b = 0; done < n; done += batch, b++) {
        const values = await c.mget(...Array.from({ length: Math.min(batch, n - done) }, (_, i) => keys.tagged(b, i)));
        values.forEach((v, i) => expectReply('MGET {tag}', done + i, v, CLUSTER_VALUE));
      }
    },
  },
];
