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
}

/** A partial change to a link, as accepted by setLink() and PUT /link (its schema: LINK_UPDATE in settings.ts). */
export type LinkUpdate = Omit<z.input<typeof LINK_UPDATE>, 'preset'>;

export const NO_DELAY: LinkSettings = {
  upUs: 0,
  downUs: 0,
  jitterUs: 0,
  jitterDist: 'uniform',
  bandwidthBps: 0,
};
