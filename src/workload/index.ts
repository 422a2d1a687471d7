export { runBench, type BenchOptions, type BenchProgress } from './bench.js';
export { DEFAULT_BENCH_OPTIONS } from './options.js';
export { runDemo, DEMO_LINKS, type DemoOptions } from './demo.js';
export { parseAddress, formatEndpoint, type Endpoint } from '../endpoint.js';
export { SHAPES, LUA_SCRIPTS, type Shape, type ShapeContext } from './shapes/index.js';
export { verifyReplies } from './verify.js';
export * from '../results/types.js';
export { runOpenLoopBench, type OpenLoopProgress } from './open-loop/bench.js';
export type { OpenLoopReport, OpenLoopResult } from './open-loop/types.js';
