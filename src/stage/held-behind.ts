/**
 * The bound on what waits behind a reply a frame stage holds (a promise: redis_drop holds its reply
 * until the connection closes, a large redis_latency holds it long). A pipelining client without
 * timeouts sends on meanwhile, each request's place kept and Redis's replies held (up to
 * --high-water, then Redis is paused), with no bound of its own: this is it.
 */
import type { Slot } from './reply-slot.js';

/**
 * What a request whose reply has not gone costs the proxy besides its bytes: its slot, its
 * RequestInfo, its reply's item and match, and the tap's record. About 1.3 KiB in all was measured
 * for a pipeline of 1 KB SETs behind redis_drop (RSS over bytes sent).
 */
const HELD_REQUEST_COST_BYTES = 1024;

const costOf = (slot: Slot): number => slot.info.bytes.length + HELD_REQUEST_COST_BYTES;

/**
 * Counts, while a stage holds a reply, every request whose replies have not all gone (the sequencer's
 * slots) and Redis's replies held. A release does not start the count again: with redis_latency
 * holding reply after reply, the requests sent during one hold still wait behind the next.
 *
 * Nothing is counted while no reply is held. A running sum over the slots counted so far
 * (Slot.heldCostTo, each slot's sum through it) gives what is still open at once: the sum, less the
 * sum before the oldest open slot. When a hold starts, the slots forwarded since the last one was
 * counted (the tail without a sum) are counted, each once.
 */
export class HeldBehind {
  /** The cost of every slot counted so far on this connection: it only grows. */
  private costSum = 0;
  private told = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onTooMuch: () => void,
  ) {}

  /** A stage began holding a reply: `slots` are the open slots, oldest first. */
  holdStarted(slots: readonly Slot[], heldReplyBytes: number): void {
    let i = slots.length;
    while (i > 0 && slots[i - 1]!.heldCostTo < 0) i--;
    for (; i < slots.length; i++) this.count(slots[i]!);
    this.check(slots, heldReplyBytes);
  }

  /** `slot` (the last of `slots`) was added while a reply is held. */
  request(slot: Slot, slots: readonly Slot[], heldReplyBytes: number): void {
    this.count(slot);
    this.check(slots, heldReplyBytes);
  }

  /** Redis's replies held now come to `heldReplyBytes`. Past the bound, told once. */
  check(slots: readonly Slot[], heldReplyBytes: number): void {
    if (this.told) return;
    const oldest = slots[0];
    const open = oldest === undefined ? 0 : this.costSum - oldest.heldCostTo + costOf(oldest);
    if (open + heldReplyBytes <= this.maxBytes) return;
    this.told = true;
    this.onTooMuch();
  }

  private count(slot: Slot): void {
    this.costSum += costOf(slot);
    slot.heldCostTo = this.costSum;
  }
}
