/**
 * The requests of one connection that are not finished yet, oldest first. A ring of reusable
 * records addressed by absolute index (never wraps in practice: 2^53 requests), so the correlator
 * can keep several cursors into it without shifting arrays. It only grows while more requests are
 * pending at once than ever before on this connection; a long connection with a steady depth
 * allocates nothing per request.
 */
import type { QueuedEffect } from '../resp/exec-effects.js';
import type { RequestModes } from '../resp/request-modes.js';
import type { CommandEntry } from './command-table.js';

/** -1 in a stamp or offset field: not happened yet. */
export const NOT_YET = -1;

export class PendingRequest {
  /** Name as counted (the CommandStats key). */
  name = '';
  entry: CommandEntry | null = null;
  /** CommandKind code (command-kind.ts). */
  kind = 0;
  argc = 0;
  requestBytes = 0;
  /** Absolute up-stream offset one past the request's last byte. */
  end = 0;
  arrivedNs = 0;
  /** When its last byte was written to Redis (the event's sentUs). */
  upWrittenNs = NOT_YET;
  firstReplyNs = NOT_YET;
  /** When its last reply's last byte was written to the client (the event's deliveredUs). */
  downWrittenNs = NOT_YET;
  /** Down-stream end offset of the last reply frame matched so far. */
  replyEnd = NOT_YET;
  /** Reply frames that answer it: 0 none, k for k pub/sub confirmations, -1 decided when it is next to be answered. */
  expected = 1;
  received = 0;
  /** Reply frames counted in the counters' `replies` for it (taken back at a close that drops them). */
  replies = 0;
  replyBytes = 0;
  /** Type byte of the first reply frame (0: none), '-' once any of them is an error. */
  replyType = 0;
  errorPrefix: string | undefined = undefined;
  blocking = false;
  /** 1-based round trip of this connection it belongs to; 0 when it opened none and joined none. */
  roundTrip = 0;
  /** What HELLO asked for (2 or 3), 0 when no protocol version was given (or not a HELLO). */
  helloProtocol = 0;
  /** commandKind() of the request, before MULTI changed it: the kind it has if it runs at once. */
  baseKind = 0;
  /** Whether it blocks if it runs at once (outside MULTI), as `blocking` is for one sent outside. */
  blocksIfRun = false;
  /**
   * A framed connection's MULTI, MONITOR or CLIENT REPLY OFF|SKIP: the request modes before it was
   * admitted, to follow the requests behind it again if a stage answers it (Redis never sees it).
   */
  modesBefore: RequestModes | null = null;
  /** An ExecFollowed's queued effects, read only for that kind (set whenever a record is one). */
  queued: readonly QueuedEffect[] | null = null;
  keyHash: string | undefined = undefined;
  argSizes: number[] | undefined = undefined;
  /** A dotted word that read as an unknown name: learned if Redis answers it (command-name.ts). */
  candidate: string | undefined = undefined;

  /** Back to a blank record (only the fields a caller may not set are reset here). */
  clear(): void {
    this.entry = null;
    this.upWrittenNs = NOT_YET;
    this.firstReplyNs = NOT_YET;
    this.downWrittenNs = NOT_YET;
    this.replyEnd = NOT_YET;
    this.received = 0;
    this.replies = 0;
    this.replyBytes = 0;
    this.replyType = 0;
    this.errorPrefix = undefined;
    this.roundTrip = 0;
    this.helloProtocol = 0;
    this.modesBefore = null;
    this.keyHash = undefined;
    this.argSizes = undefined;
    this.candidate = undefined;
  }
}

const INITIAL_CAPACITY = 2;

export class RequestRing {
  private slots: (PendingRequest | undefined)[] = [];
  private mask = INITIAL_CAPACITY - 1;
  /** Absolute index of the oldest record. */
  head = 0;
  /** Absolute index one past the newest record. */
  tail = 0;

  // Small at first and filled when a slot is first used: a connection that never pipelines (one
  // request in flight) keeps two records, not sixteen, so a thousand connections opening at once
  // give the scavenger that much less to copy (docs/self-report.md "Fast path").
  constructor() {
    this.slots.length = INITIAL_CAPACITY;
  }

  get size(): number {
    return this.tail - this.head;
  }

  get capacity(): number {
    return this.slots.length;
  }

  /** The record at absolute index `i` (head <= i < tail). */
  at(i: number): PendingRequest {
    return this.slots[i & this.mask] as PendingRequest;
  }

  /**
   * Appends a blank record and returns it for the caller to fill. A slot past the live records
   * holds either nothing or a record shift() already cleared (grow() moves only live ones), so it
   * is not cleared twice.
   */
  push(): PendingRequest {
    if (this.tail - this.head === this.slots.length) this.grow();
    const i = this.tail & this.mask;
    let rec = this.slots[i];
    if (rec === undefined) rec = this.slots[i] = new PendingRequest();
    this.tail++;
    return rec;
  }

  /** Drops the oldest record (dropping its references so nothing is kept alive by the slot). */
  shift(): void {
    (this.slots[this.head & this.mask] as PendingRequest).clear();
    this.head++;
  }

  private grow(): void {
    const old = this.slots;
    const oldMask = this.mask;
    const capacity = old.length * 2;
    const slots = new Array<PendingRequest | undefined>(capacity);
    const mask = capacity - 1;
    // Live records keep their absolute index, so they move to where the new mask puts them.
    for (let i = this.head; i < this.tail; i++) slots[i & mask] = old[i & oldMask];
    this.slots = slots;
    this.mask = mask;
  }
}
