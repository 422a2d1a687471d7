import { queueOps } from './batched.js';
import { asError, checkAbort, takeExecResults, type Replies, type Shape, type ShapeContext } from './types.js';

/**
 * MULTI/EXEC batches of B via ioredis multi(): MULTI, the B commands and EXEC go out in one write.
 * Redis answers MULTI and each command with +OK/+QUEUED before EXEC's array: more reply bytes
 * than a pipeline, still one wait per batch.
 */
export const multiShape: Shape = {
  mode: 'multi',
  notApplicable: () => null,
  async run(ctx: ShapeContext): Promise<Replies> {
    const { redis, n, batch } = ctx;
    const replies: Replies = [];
    for (let from = 0; from < n; from += batch) {
      checkAbort(ctx.signal);
      const to = Math.min(n, from + batch);
      const start = process.hrtime.bigint();
      const m = redis.multi();
      queueOps(m, ctx.workload, ctx.data, from, to);
      try {
        if (!takeExecResults(replies, from, await m.exec(), to - from)) return replies;
      } catch (err) {
        replies[from] = asError(err);
        return replies;
      }
      ctx.waitDone(start);
    }
    return replies;
  },
};
