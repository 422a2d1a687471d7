export type { Stream, Toxic, ToxicEnv, ToxicSpec } from './types.js';
export { createToxic } from './toxic.js';
export { parseToxicSpec, type UnknownToxicKeys } from './spec.js';
export { TOXIC_TYPES } from './registry.js';
export { ToxicSet, ToxicExistsError, type ToxicCount } from './toxic-set.js';
