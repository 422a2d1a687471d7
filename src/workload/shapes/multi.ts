import { runChainedBatches } from './batched.js';
import type { Shape } from './types.js';

/**
 * MULTI/EXEC batches of B via ioredis multi(): MULTI, the B commands and EXEC go out in one write.
 * Redis answers MULTI and each command with +OK/+QUEUED before EXEC's array: more reply bytes
 * than a pipeline, still one wait per batch.
 */
export const multiShape: Shape = {
  mode: 'multi',
  notApplicable: () => null,
  run: (ctx) => runChainedBatches(ctx, (redis) => redis.multi()),
};
