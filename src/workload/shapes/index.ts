import type { Mode } from '../../results/types.js';
import { autoShape } from './auto.js';
import { luaShape } from './lua.js';
import { mgetShape } from './mget.js';
import { msetShape } from './mset.js';
import { multiShape } from './multi.js';
import { pipelineShape } from './pipeline.js';
import { seqShape } from './seq.js';
import type { Shape } from './types.js';

export const SHAPES: Readonly<Record<Mode, Shape>> = {
  seq: seqShape,
  pipeline: pipelineShape,
  multi: multiShape,
  mget: mgetShape,
  mset: msetShape,
  lua: luaShape,
  auto: autoShape,
};

export { LUA_SCRIPTS } from './lua.js';
export { SampleAborted } from './types.js';
export type { Replies, Shape } from './types.js';
