import { asError, checkAbort, type Replies, type Shape, type ShapeContext } from './types.js';

/** Native MGET of B keys per wait; one reply array spread back into one entry per key. */
export const mgetShape: Shape = {
  mode: 'mget',
  notApplicable: (w) => (w === 'get' ? null : `mget reads keys; it does not apply to the ${w} workload`),
  async run(ctx: ShapeContext): Promise<Replies> {
    const { redis, n, batch, data } = ctx;
    const replies: Replies = [];
    for (let from = 0; from < n; from += batch) {
      checkAbort(ctx.signal);
      const to = Math.min(n, from + batch);
      const start = process.hrtime.bigint();
      try {
        const values = await redis.mgetBuffer(data.keys.slice(from, to));
        for (let j = 0; j < to - from; j++) replies[from + j] = values[j];
      } catch (err) {
        replies[from] = asError(err);
        return replies;
      }
      ctx.waitDone(start);
    }
    return replies;
  },
};
