import { runBatches } from './batched.js';
import type { Shape } from './types.js';

/** Native MGET of B keys per wait; one reply array spread back into one entry per key. */
export const mgetShape: Shape = {
  mode: 'mget',
  notApplicable: (w) => (w === 'get' ? null : `mget reads keys; it does not apply to the ${w} workload`),
  run: (ctx) =>
    runBatches(ctx, async (from, to, replies) => {
      const values = await ctx.redis.mgetBuffer(ctx.data.keys.slice(from, to));
      for (let j = 0; j < to - from; j++) replies[from + j] = values[j];
      return true;
    }),
};
