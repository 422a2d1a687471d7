import type { ChainableCommander, Redis } from 'ioredis';
import { asError, checkAbort, takeExecResults, type Replies, type ShapeContext } from './types.js';
import type { WorkloadData } from '../keys.js';
import type { Workload } from '../types.js';

/** Queues operations [from, to) of a workload on a pipeline or a MULTI. */
export function queueOps(chain: ChainableCommander, workload: Workload, data: WorkloadData, from: number, to: number): void {
  if (workload === 'incr') {
    for (let i = from; i < to; i++) chain.incr(data.counterKey);
  } else if (workload === 'set') {
    for (let i = from; i < to; i++) chain.set(data.keys[i] as string, data.values[i] as Buffer);
  } else {
    for (let i = from; i < to; i++) chain.getBuffer(data.keys[i] as string);
  }
}

/**
 * Runs the workload in batches of B, each built on a fresh chain (a pipeline or a MULTI) and sent
 * in one write: one wait per batch. Stops at the first failed batch, leaving the error in place.
 */
export async function runChainedBatches(ctx: ShapeContext, open: (redis: Redis) => ChainableCommander): Promise<Replies> {
  const { redis, n, batch } = ctx;
  const replies: Replies = [];
  for (let from = 0; from < n; from += batch) {
    checkAbort(ctx.signal);
    const to = Math.min(n, from + batch);
    const start = process.hrtime.bigint();
    const chain = open(redis);
    queueOps(chain, ctx.workload, ctx.data, from, to);
    try {
      if (!takeExecResults(replies, from, await chain.exec(), to - from)) return replies;
    } catch (err) {
      replies[from] = asError(err);
      return replies;
    }
    ctx.waitDone(start);
  }
  return replies;
}
