/**
 * The reply sequencer's bookkeeping: one slot per request in request order, and SlotMatching, the
 * one matcher of a framed connection (resp/reply-matching.ts), which pairs Redis's frames with the
 * forwarded slots and writes down how it matched each frame (a MatchedReply, which the tap reads).
 */
import type { QueuedEffect } from '../resp/exec-effects.js';
import type { ReplyFrame } from '../resp/types.js';
import { ReplyMatching } from '../resp/reply-matching.js';
import { ReplyModes } from '../resp/reply-modes.js';
import type { MatchedReply, RequestInfo } from './types.js';

export const SlotKind = { Forwarded: 0, Local: 1, Dropped: 2 } as const;

export interface Slot {
  readonly slotKind: number;
  readonly info: RequestInfo;
  /** Command kind (effective, MULTI-aware) of a forwarded request. */
  readonly kind: number;
  readonly helloProtocol: number;
  /** An ExecFollowed's queued effects (read only for that kind). */
  queued: readonly QueuedEffect[] | null;
  /** Redis frames it expects (EXPECT_PER_SUBSCRIPTION until resolved). */
  expected: number;
  received: number;
  /** Redis frames matched to it / handed out to the client (or dropped by a stage). */
  matched: number;
  emitted: number;
  /** No more Redis frames will be matched to it. */
  complete: boolean;
  /** Local answer bytes, and whether its delay has passed. */
  local: Buffer | undefined;
  ready: boolean;
  /**
   * A forwarded stand-in's reply is shown as this (an EXEC answered locally: Redis got DISCARD in
   * its place, and its +OK becomes the answer), or undefined.
   */
  answer: Buffer | undefined;
  /** The held-behind count through this slot (held-behind.ts), or -1: not counted (no reply was held). */
  heldCostTo: number;
}

export function newSlot(slotKind: number, info: RequestInfo, kind: number, helloProtocol: number, expected: number): Slot {
  return {
    slotKind,
    info,
    kind,
    helloProtocol,
    queued: null,
    expected,
    received: 0,
    matched: 0,
    emitted: 0,
    complete: slotKind !== SlotKind.Forwarded || expected === 0,
    local: undefined,
    ready: false,
    answer: undefined,
    heldCostTo: -1,
  };
}

/** How one Redis frame was matched (or a local answer made): a MatchedReply being filled. */
export class SlotMatch implements MatchedReply {
  seq = -1;
  completes = false;
  cutShort = -1;
  pushKind = '';
  frame: ReplyFrame | undefined = undefined;
  /** The slot it answers, or undefined: a push. */
  slot: Slot | undefined = undefined;
}

/** A local answer's match: it answers its own slot, whole. */
export function localMatch(slot: Slot): SlotMatch {
  const m = new SlotMatch();
  m.seq = slot.info.seq;
  m.completes = true;
  m.slot = slot;
  return m;
}

/** Matches Redis's frames (in Redis's order) to the forwarded slots that expect replies. */
export class SlotMatching extends ReplyMatching<Slot> {
  private readonly forwarded: Slot[] = [];
  private at = 0;
  private current = new SlotMatch();
  /** A replica's PSYNC or SYNC was answered: what Redis sends after that reply is the replication stream. */
  replicating = false;

  add(slot: Slot): void {
    // One with no reply only if it changes what later frames are (ReplyModes.silent): a client
    // under CLIENT REPLY OFF sends any number of the others.
    if (slot.slotKind !== SlotKind.Forwarded) return;
    if (slot.expected === 0) {
      if (!ReplyModes.changedBySilent(slot.kind)) return;
      this.silentPending++;
    }
    this.forwarded.push(slot);
  }

  /** Matches `f`; `keepFrame`: keep a copy of its summary for the tap. */
  matchFrame(f: ReplyFrame, keepFrame: boolean): SlotMatch {
    const m = (this.current = new SlotMatch());
    if (keepFrame) m.frame = { ...f };
    this.match(f, 0);
    return m;
  }

  protected waiting(): Slot | null {
    let slot = this.forwarded[this.at];
    while (slot !== undefined && slot.expected === 0) {
      this.passed(slot);
      slot = this.forwarded[++this.at];
    }
    return slot ?? null;
  }

  protected answered(slot: Slot): void {
    slot.matched++;
    this.current.slot = slot;
    this.current.seq = slot.info.seq;
  }

  protected completed(slot: Slot): void {
    slot.complete = true;
    if (slot.info.seq === this.current.seq) this.current.completes = true;
    else this.current.cutShort = slot.info.seq;
    this.at++;
    if (this.at > 1024 && this.at * 2 > this.forwarded.length) {
      this.forwarded.splice(0, this.at);
      this.at = 0;
    }
  }

  protected override replicationStarted(): void {
    this.replicating = true;
  }

  protected pushed(_f: ReplyFrame, kind: string): void {
    this.current.pushKind = kind;
  }
}
