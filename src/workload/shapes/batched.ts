import type { ChainableCommander, Redis } from 'ioredis';
import { asError, checkAbort, takeExecResults, type Replies, type ShapeContext } from './types.js';
import type { WorkloadData } from '../keys.js';
import type { Workload } from '../../results/types.js';

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
 * The loop every batched shape shares: for each batch [from, to) it checks for abort, times one
 * wait around `send`, and stops at the first failed batch. `send` writes the batch's replies into
 * `replies` and returns false when one of them failed; a thrown error is stored at `from`.
 */
export async function runBatches(
  ctx: ShapeContext,
  send: (from: number, to: number, replies: Replies) => Promise<boolean>,
): Promise<Replies> {
  const replies: Replies = [];
  for (let from = 0; from < ctx.n; from += ctx.batch) {
    checkAbort(ctx.signal);
    const to = Math.min(ctx.n, from + ctx.batch);
    const start = process.hrtime.bigint();
    try {
      if (!(await send(from, to, replies))) return replies;
    } catch (err) {
      replies[from] = asError(err);
      return replies;
    }
    ctx.waitDone(start);
  }
  return replies;
}

/** Batches of B built on a fresh chain (a pipeline or a MULTI) each, sent in one write. */
export function runChainedBatches(ctx: ShapeContext, open: (redis: Redis) => ChainableCommander): Promise<Replies> {
  return runBatches(ctx, async (from, to, replies) => {
    const chain = open(ctx.redis);
    queueOps(chain, ctx.workload, ctx.data, from, to);
    return takeExecResults(replies, from, await chain.exec(), to - from);
  });
}
