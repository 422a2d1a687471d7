import { runBatches } from './batched.js';
import type { Shape } from './types.js';

/** Native MSET of B key/value pairs per wait; its one OK stands for each of the B writes. */
export const msetShape: Shape = {
  mode: 'mset',
  notApplicable: (w) => (w === 'set' ? null : `mset writes keys; it does not apply to the ${w} workload`),
  run: (ctx) =>
    runBatches(ctx, async (from, to, replies) => {
      const args: (string | Buffer)[] = new Array((to - from) * 2);
      for (let i = from, a = 0; i < to; i++, a += 2) {
        args[a] = ctx.data.keys[i] as string;
        args[a + 1] = ctx.data.values[i] as Buffer;
      }
      const ok = await ctx.redis.mset(args);
      for (let j = from; j < to; j++) replies[j] = ok;
      return true;
    }),
};
