/**
 * How many unfinished requests the taps may hold, per connection and in total. Each costs a
 * record in its connection's ring (its size: docs/SECURITY.md), and a client can pipeline without limit
 * (behind a BLPOP, Redis keeps reading into its query buffer and answers nothing), so without a
 * bound the proxy grows with whatever a client sends.
 *
 * Past either bound the tap of the connection that asked for one more gives up timing: it drops
 * its records and counts commands only, like a desynced framer (see correlator.ts). The bytes are
 * not touched, so nothing is dropped, delayed or reordered. Pausing the client instead would
 * deadlock a client that writes its whole pipeline before reading any reply (redis-py's
 * pipeline does) once the replies it has not read fill the down direction's high-water mark.
 */

/** Deeper than any pipeline a benchmark or a client library sends (its memory: docs/SECURITY.md). */
export const DEFAULT_MAX_PENDING_PER_CONNECTION = 65_536;
/** Across all connections (its memory: docs/SECURITY.md). */
export const DEFAULT_MAX_PENDING_TOTAL = 262_144;

export class PendingBudget {
  /** Records pending now, all connections together. */
  used = 0;

  constructor(
    readonly perConnection = DEFAULT_MAX_PENDING_PER_CONNECTION,
    readonly total = DEFAULT_MAX_PENDING_TOTAL,
  ) {}

  /** True when a connection with `pending` records may not take one more. */
  full(pending: number): boolean {
    return pending >= this.perConnection || this.used >= this.total;
  }
}
