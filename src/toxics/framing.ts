import type { FrameStageFactory } from '../stage/types.js';

/**
 * A frame stage that does nothing. The chain frames only connections accepted while a frame stage
 * exists, and cannot start framing mid-stream. A proxy that will take Redis-aware toxics later
 * (toxiproxy users connect once, then add toxics per test) runs this from the start so every
 * connection is framed and a toxic added later reaches it. It costs the zero-delay fast path.
 */
export const FRAMING_STAGE: FrameStageFactory = { kind: 'frame', name: 'redis-rtt:framing', create: () => ({}) };
