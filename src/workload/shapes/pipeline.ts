import { runChainedBatches } from './batched.js';
import type { Shape } from './types.js';

/** ioredis pipeline() (no MULTI/EXEC): each batch of B goes out in one write, one wait per batch. */
export const pipelineShape: Shape = {
  mode: 'pipeline',
  notApplicable: () => null,
  run: (ctx) => runChainedBatches(ctx, (redis) => redis.pipeline()),
};
