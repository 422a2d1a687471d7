import type { ChainableCommander } from 'ioredis';
import type { WorkloadData } from '../keys.js';
import type { Workload } from '../types.js';

/** Queues operations [from, to) of a workload on a pipeline or a MULTI. */
export function queueOps(chain: ChainableCommander, workload: Workload, data: WorkloadData, from: number, to: number): void {
  if (workload === 'incr') {
    for (let i = from; i < to; i++) chain.incr(data.counterKey);
  } else if (workload === 'set') {
    for (let i = from; i < to; i++) chain.set(data.keys[i] as string, data.values[i] as Buffer);
  } else {
    for (let i = from; i < to; i++) chain.getBuffer(data.keys[i] as string);
  }
}
