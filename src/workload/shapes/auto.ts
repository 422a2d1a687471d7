import { asError, checkAbort, type Replies, type Shape, type ShapeContext } from './types.js';

/**
 * ioredis `enableAutoPipelining` (the context's client has it on): plain awaited commands, with a
 * window of C = batch commands outstanding. ioredis gathers the commands issued in one tick into
 * one write; how many waits that makes is up to ioredis, which is what this shape measures.
 * Latency is recorded per command (issue -> reply), since there is no batch to time.
 */
export const autoShape: Shape = {
  mode: 'auto',
  notApplicable: () => null,
  async run(ctx: ShapeContext): Promise<Replies> {
    const { redis, n, data, workload } = ctx;
    const replies: Replies = [];
    let next = 0;
    let failed = false;
    const worker = async (): Promise<void> => {
      while (next < n && !failed) {
        checkAbort(ctx.signal);
        const i = next++;
        const start = process.hrtime.bigint();
        try {
          if (workload === 'incr') replies[i] = await redis.incr(data.counterKey);
          else if (workload === 'set') replies[i] = await redis.set(data.keys[i] as string, data.values[i] as Buffer);
          else replies[i] = await redis.getBuffer(data.keys[i] as string);
          ctx.waitDone(start);
        } catch (err) {
          replies[i] = asError(err);
          failed = true;
        }
      }
    };
    const window = Math.max(1, Math.min(ctx.batch, n));
    await Promise.all(Array.from({ length: window }, () => worker()));
    return replies;
  },
};
