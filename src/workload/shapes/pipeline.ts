import { queueOps } from './batched.js';
import { asError, checkAbort, takeExecResults, type Replies, type Shape, type ShapeContext } from './types.js';

/** ioredis pipeline() (no MULTI/EXEC): each batch of B goes out in one write, one wait per batch. */
export const pipelineShape: Shape = {
  mode: 'pipeline',
  notApplicable: () => null,
  async run(ctx: ShapeContext): Promise<Replies> {
    const { redis, n, batch } = ctx;
    const replies: Replies = [];
    for (let from = 0; from < n; from += batch) {
      checkAbort(ctx.signal);
      const to = Math.min(n, from + batch);
      const start = process.hrtime.bigint();
      const p = redis.pipeline();
      queueOps(p, ctx.workload, ctx.data, from, to);
      try {
        if (!takeExecResults(replies, from, await p.exec(), to - from)) return replies;
      } catch (err) {
        replies[from] = asError(err);
        return replies;
      }
      ctx.waitDone(start);
    }
    return replies;
  },
};
