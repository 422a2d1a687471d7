import { asError, checkAbort, type Replies, type Shape, type ShapeContext } from './types.js';

/** An awaited loop, one command at a time: the shape most application code has. */
export const seqShape: Shape = {
  mode: 'seq',
  notApplicable: () => null,
  async run(ctx: ShapeContext): Promise<Replies> {
    const { redis, n, data } = ctx;
    const replies: Replies = [];
    for (let i = 0; i < n; i++) {
      checkAbort(ctx.signal);
      const start = process.hrtime.bigint();
      try {
        if (ctx.workload === 'incr') replies.push(await redis.incr(data.counterKey));
        else if (ctx.workload === 'set') replies.push(await redis.set(data.keys[i] as string, data.values[i] as Buffer));
        else replies.push(await redis.getBuffer(data.keys[i] as string));
      } catch (err) {
        replies.push(asError(err));
        return replies;
      }
      ctx.waitDone(start);
    }
    return replies;
  },
};
