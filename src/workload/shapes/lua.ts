import type { Workload } from '../../results/types.js';
import { runBatches } from './batched.js';
import type { Shape } from './types.js';

/**
 * One script per workload, running B operations per EVALSHA. redis.pcall keeps a failing
 * operation's error in its slot of the reply array instead of aborting the script, so the
 * verifier can name the exact operation.
 */
export const LUA_SCRIPTS: Record<Workload, string> = {
  incr: "local r = {} for i = 1, tonumber(ARGV[1]) do r[i] = redis.pcall('INCR', KEYS[1]) end return r",
  set: "local r = {} for i = 1, #KEYS do r[i] = redis.pcall('SET', KEYS[i], ARGV[i]) end return r",
  get: "local r = {} for i = 1, #KEYS do r[i] = redis.pcall('GET', KEYS[i]) end return r",
};

/** ioredis defines a Buffer variant of every command at runtime; its typings omit evalshaBuffer. */
interface BufferEval {
  evalshaBuffer(...args: (string | number | Buffer)[]): Promise<unknown>;
}

/** One EVALSHA per batch of B operations (the script is loaded with SCRIPT LOAD outside the timing). */
export const luaShape: Shape = {
  mode: 'lua',
  notApplicable: () => null,
  run: (ctx) =>
    runBatches(ctx, async (from, to, replies) => {
      const { redis, data, luaSha } = ctx;
      let values: unknown;
      if (ctx.workload === 'incr') {
        values = await redis.evalsha(luaSha, 1, data.counterKey, to - from);
      } else if (ctx.workload === 'set') {
        values = await redis.evalsha(luaSha, to - from, ...data.keys.slice(from, to), ...data.values.slice(from, to));
      } else {
        values = await (redis as unknown as BufferEval).evalshaBuffer(luaSha, to - from, ...data.keys.slice(from, to));
      }
      if (!Array.isArray(values)) {
        replies[from] = new Error(`EVALSHA returned ${typeof values}, expected an array`);
        return false;
      }
      let ok = true;
      for (let j = 0; j < to - from; j++) {
        const v: unknown = values[j];
        replies[from + j] = v;
        if (v instanceof Error) ok = false;
      }
      return ok;
    }),
};
