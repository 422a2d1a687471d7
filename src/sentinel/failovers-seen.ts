import { nodeKey } from '../cluster/topology.js';
import type { RealAddress } from '../cluster/types.js';

/**
 * Failovers the proxy's readings saw (/stats `sentinel.failovers`, redis_rtt_sentinel_failovers_total):
 * the primary a reading names changing from one node to another. A reading that names none leaves the
 * last one in place, so a sentinel that stops answering for a while is no failover.
 */
export class FailoversSeen {
  private last: string | undefined;
  private seen = 0;

  /** The primary one reading named. */
  read(primary: RealAddress | undefined): void {
    if (primary === undefined) return;
    const key = nodeKey(primary.host, primary.port);
    if (this.last !== undefined && key !== this.last) this.seen++;
    this.last = key;
  }

  get count(): number {
    return this.seen;
  }

  /** Counts from zero again; the primary now stays the one a change is measured from. */
  reset(): void {
    this.seen = 0;
  }
}
