import { asError, checkAbort, type Replies, type Shape, type ShapeContext } from './types.js';

/** Native MSET of B key/value pairs per wait; its one OK stands for each of the B writes. */
export const msetShape: Shape = {
  mode: 'mset',
  notApplicable: (w) => (w === 'set' ? null : `mset writes keys; it does not apply to the ${w} workload`),
  async run(ctx: ShapeContext): Promise<Replies> {
    const { redis, n, batch, data } = ctx;
    const replies: Replies = [];
    for (let from = 0; from < n; from += batch) {
      checkAbort(ctx.signal);
      const to = Math.min(n, from + batch);
      const start = process.hrtime.bigint();
      const args: (string | Buffer)[] = new Array((to - from) * 2);
      for (let i = from, a = 0; i < to; i++, a += 2) {
        args[a] = data.keys[i] as string;
        args[a + 1] = data.values[i] as Buffer;
      }
      try {
        const ok = await redis.mset(args);
        for (let j = from; j < to; j++) replies[j] = ok;
      } catch (err) {
        replies[from] = asError(err);
        return replies;
      }
      ctx.waitDone(start);
    }
    return replies;
  },
};
