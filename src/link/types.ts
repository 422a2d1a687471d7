/** The network a proxy simulates. One-way delays per direction; up = client -> Redis. */
import type { z } from 'zod';
import type { LINK_UPDATE } from './settings.js';

export type JitterDist = 'uniform' | 'normal' | 'pareto' | 'paretonormal';
export const JITTER_DISTS: readonly JitterDist[] = ['uniform', 'normal', 'pareto', 'paretonormal'];

/** The current settings of a link (what GET /stats shows under `link`). */
export interface LinkSettings {
  /** One-way delay client -> Redis, microseconds. */
  upUs: number;
  /** One-way delay Redis -> client, microseconds. */
  downUs: number;
  /** Jitter scale per direction, microseconds (0 = none). The mean delay stays upUs/downUs. */
  jitterUs: number;
  jitterDist: JitterDist;
  /** Per-direction rate limit in bits per second (0 = unlimited). */
  bandwidthBps: number;
  /** Probability that a segment client -> Redis is lost (and resent as TCP would: loss-model.ts), in [0, 1). */
  lossUp: number;
  /** Probability that a segment Redis -> client is lost, in [0, 1). */
  lossDown: number;
  /** Mean length of a run of lost segments (a two-state chain); 0 = each segment lost independently. */
  lossBurst: number;
  /** Segment size the loss model cuts chunks into, bytes (Linux's MSS on a 1500-byte MTU with timestamps). */
  mssBytes: number;
}

/** A partial change to a link, as accepted by setLink() and PUT /link (its schema: LINK_UPDATE in settings.ts). */
export type LinkUpdate = Omit<z.input<typeof LINK_UPDATE>, 'preset'>;

export const NO_DELAY: LinkSettings = {
  upUs: 0,
  downUs: 0,
  jitterUs: 0,
  jitterDist: 'uniform',
  bandwidthBps: 0,
  lossUp: 0,
  lossDown: 0,
  lossBurst: 0,
  mssBytes: 1448,
};
