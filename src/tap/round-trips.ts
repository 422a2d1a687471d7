/**
 * Round trips, flights and depth of one connection, from three facts: a request arrived (and
 * whether it expects a reply), a request's reply reached the client, some reply bytes reached the
 * client. Counts go into the Counters passed in (they are swapped on a stats collector reset).
 */
import { recordDepth } from './counters.js';
import type { Counters } from './counter-types.js';

export class RoundTrips {
  /** Requests arrived whose reply has not reached the client yet. */
  outstanding = 0;
  private number = 0;
  private requests = 0;
  private newFlight = true;

  /**
   * A request arrived. Returns the 1-based round trip it belongs to, or 0 when it expects no reply
   * and none is open (a fire-and-forget request under CLIENT REPLY OFF belongs to no round trip).
   */
  arrived(c: Counters, expectsReply: boolean): number {
    if (this.newFlight) {
      c.flights++;
      this.newFlight = false;
    }
    if (expectsReply) this.outstandingOneMore(c);
    if (this.outstanding === 0) return 0;
    this.requests++;
    return this.number;
  }

  /**
   * A request that arrived taken to expect no reply does expect one (a framed connection's chain
   * said so before it was sent): outstanding from now. `roundTrip`: the one it joined, 0 if none.
   * Returns the round trip it belongs to.
   */
  expectsAfterAll(c: Counters, roundTrip: number): number {
    const joined = roundTrip === this.number && this.outstanding > 0;
    this.outstandingOneMore(c);
    if (!joined) this.requests++;
    return this.number;
  }

  /** One more request awaits a reply: the first after none starts a round trip. */
  private outstandingOneMore(c: Counters): void {
    if (this.outstanding === 0) {
      c.roundTrips++;
      this.number++;
      this.requests = 0;
    }
    this.outstanding++;
    if (this.outstanding > c.maxDepth) c.maxDepth = this.outstanding;
  }

  /**
   * A request arrived while its connection is counted without records (a degraded tap's window,
   * request-ledger.ts): it joins the round trip open then, or starts one. The depth is not followed
   * there: it is the bound at least, and maxDepth stays what it was.
   */
  joinedUntimed(c: Counters): void {
    if (this.newFlight) {
      c.flights++;
      this.newFlight = false;
    }
    if (this.outstanding === 0) this.outstandingOneMore(c);
    this.requests++;
  }

  /** Every reply of a degraded tap's window reached the client: its round trip ends. */
  untimedEnded(c: Counters): void {
    if (this.outstanding === 0) return;
    this.outstanding = 0;
    recordDepth(c.depthHistogram, this.requests);
  }

  /** A request's last reply frame reached the client: the round trip ends when none is left. */
  answered(c: Counters): void {
    this.outstanding--;
    if (this.outstanding === 0) recordDepth(c.depthHistogram, this.requests);
  }

  /** Bytes from Redis were written to the client: the next request starts a new flight. */
  downWritten(): void {
    this.newFlight = true;
  }

  /** The connection ended: an open round trip is counted with the requests it had. */
  closed(c: Counters): void {
    if (this.outstanding > 0) recordDepth(c.depthHistogram, this.requests);
  }

  /**
   * Fresh counters for a new period: an open round trip is counted there (where it will end), so
   * depthHistogram keeps summing to roundTrips.
   */
  carryInto(c: Counters): void {
    c.maxDepth = this.outstanding;
    if (this.outstanding > 0) c.roundTrips = 1;
  }
}
