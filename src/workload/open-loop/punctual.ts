import { LatencyHistogram } from '../../numbers/histogram.js';

/**
 * Each answered command's due time and service time (its uncorrected latency), in the order the
 * replies came: what the punctual replay needs. Grows by doubling, so a run makes a few arrays,
 * not one object per command.
 */
export class ServiceTimes {
  dueNs: Float64Array;
  serviceNs: Float64Array;
  count = 0;

  constructor(capacity: number) {
    this.dueNs = new Float64Array(Math.max(16, capacity));
    this.serviceNs = new Float64Array(Math.max(16, capacity));
  }

  add(dueNs: number, serviceNs: number): void {
    if (this.count === this.dueNs.length) {
      this.dueNs = doubled(this.dueNs);
      this.serviceNs = doubled(this.serviceNs);
    }
    this.dueNs[this.count] = dueNs;
    this.serviceNs[this.count] = serviceNs;
    this.count++;
  }
}

/** A copy of `a` with room for twice as many. */
function doubled(a: Float64Array): Float64Array {
  const bigger = new Float64Array(a.length * 2);
  bigger.set(a);
  return bigger;
}

/**
 * The corrected latency a punctual generator would have seen: every command written at its due
 * time, in due order, on the connection that frees first (one command in flight per connection),
 * each taking the service time it took in the run. What is left of corrected over uncorrected
 * then is the wait for a free connection alone: the link's queueing, which more connections
 * shorten and no generator can. The replay keeps each command's service time although a command
 * sent at another moment could have met another one; it is an estimate of what the driver's own
 * lateness cost, not a second measurement.
 */
export function punctualCorrected(times: ServiceTimes, connections: number): LatencyHistogram {
  const n = times.count;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const dues = times.dueNs;
  order.sort((a, b) => (dues[a] as number) - (dues[b] as number));
  const out = new LatencyHistogram();
  if (n === 0) return out;
  // When each connection is next free: a binary min-heap, all free at the first due time.
  const freeNs = new Float64Array(connections).fill(dues[order[0] as number] as number);
  for (let k = 0; k < n; k++) {
    const i = order[k] as number;
    const dueNs = dues[i] as number;
    const startNs = Math.max(dueNs, freeNs[0] as number);
    const doneNs = startNs + (times.serviceNs[i] as number);
    out.record((doneNs - dueNs) / 1000);
    replaceMin(freeNs, doneNs);
  }
  return out;
}

/** Replaces a min-heap's root with `value` and sifts it down. */
function replaceMin(heap: Float64Array, value: number): void {
  const n = heap.length;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) break;
    const right = left + 1;
    const child = right < n && (heap[right] as number) < (heap[left] as number) ? right : left;
    if ((heap[child] as number) >= value) break;
    heap[i] = heap[child] as number;
    i = child;
  }
  heap[i] = value;
}
