import { PreciseScheduler } from './scheduler.js';

let processScheduler: PreciseScheduler | undefined;

/**
 * The process's scheduler, for every proxy started without one of its own: one heap, one poll and
 * one timer-thread slot however many proxies a process runs.
 */
export function sharedScheduler(): PreciseScheduler {
  return (processScheduler ??= new PreciseScheduler());
}
