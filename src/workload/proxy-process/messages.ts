import type { ProxyOptions } from '../../proxy/types.js';
import type { StatsSnapshot } from '../../stats/types.js';

/**
 * What the driver and a link's proxy process say over the fork IPC channel. Plain JSON both ways:
 * the options carry no functions (the child logs nowhere), the snapshot is plain data.
 *
 * child -> driver: `ready` once it listens for messages (nothing sent before it could be lost).
 * driver -> child: `start` once, then any number of `read`, then `close`.
 * child -> driver: `started` (or `failed`) for the start, `reading` for each read (same `id`),
 * `closed` just before it exits.
 */
export type StartableProxyOptions = Pick<ProxyOptions, 'upstream' | 'listen' | 'link' | 'seed' | 'compensationUs'>;

export type ToChild =
  | { type: 'start'; options: StartableProxyOptions }
  | { type: 'read'; id: number }
  | { type: 'close' };

export type FromChild =
  | { type: 'ready' }
  | { type: 'started'; address: string; compensationUs: { up: number; down: number } }
  | { type: 'failed'; message: string }
  | { type: 'reading'; id: number; reading: ProxyReading }
  | { type: 'closed' };

/** The proxy's /stats snapshot and its process's CPU, read together. */
export interface ProxyReading {
  stats: StatsSnapshot;
  /**
   * The proxy process's CPU time (user + system, every thread) since it started, microseconds, less
   * what answering reads cost (read-cpu.ts): the difference of two readings is the proxy's work between them.
   */
  cpuUs: number;
}
