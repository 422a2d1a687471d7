/**
 * The reply sequencer's bookkeeping: one slot per request in request order, and the ReplyMatcher
 * that pairs Redis's frames with the forwarded ones. The matching follows the tap's correlator rule for rule,
 * with the tap's own state machines (reply-modes.ts: protocol, MONITOR, subscriptions;
 * request-modes.ts: CLIENT REPLY, MULTI), so pushes, no-reply requests and multi-reply pub/sub
 * commands never shift a reply onto the wrong request.
 */
import { RespType, type ReplyFrame } from '../resp/types.js';
import { FrameClass, ReplyModes, classifyFrame, confirmationKind } from '../resp/reply-modes.js';
import { EXPECT_PER_SUBSCRIPTION } from '../resp/request-modes.js';
import type { RequestInfo } from './types.js';

export const SlotKind = { Forwarded: 0, Local: 1, Dropped: 2 } as const;

export interface Slot {
  readonly kind: number;
  readonly info: RequestInfo;
  /** Tap command kind (effective, MULTI-aware) of a forwarded request. */
  readonly commandKind: number;
  readonly helloProtocol: number;
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
}

export function newSlot(kind: number, info: RequestInfo, commandKind: number, helloProtocol: number, expected: number): Slot {
  return {
    kind,
    info,
    commandKind,
    helloProtocol,
    expected,
    received: 0,
    matched: 0,
    emitted: 0,
    complete: kind !== SlotKind.Forwarded || expected === 0,
    local: undefined,
    ready: false,
  };
}

/** Matches Redis's frames (in Redis's order) to forwarded slots; undefined = a push. */
export class ReplyMatcher {
  readonly modes = new ReplyModes();
  private readonly forwarded: Slot[] = [];
  private at = 0;

  add(slot: Slot): void {
    if (slot.kind === SlotKind.Forwarded && slot.expected !== 0) this.forwarded.push(slot);
  }

  match(f: ReplyFrame): Slot | undefined {
    const cls = classifyFrame(f, this.modes);
    if (cls === FrameClass.Confirmation) {
      const kind = confirmationKind(f.head);
      const target = this.target();
      if (target !== undefined && target.commandKind === kind) {
        this.modes.confirmed(kind, f.lastInt);
        target.received++;
        target.matched++;
        if (target.received >= target.expected) this.complete(target);
        return target;
      }
      if (f.type === RespType.Push || this.modes.subscribed) {
        this.modes.confirmed(kind, f.lastInt);
        return undefined;
      }
    } else if (cls !== FrameClass.Reply) {
      return undefined;
    }
    let target = this.target();
    if (target !== undefined && target.received > 0) {
      this.complete(target);
      target = this.target();
    }
    if (target === undefined) return undefined;
    target.matched++;
    this.modes.answered(target.commandKind, target.helloProtocol, f.type);
    this.complete(target);
    return target;
  }

  private target(): Slot | undefined {
    const t = this.forwarded[this.at];
    if (t !== undefined && t.expected === EXPECT_PER_SUBSCRIPTION) t.expected = this.modes.unsubscribeAllReplies(t.commandKind);
    return t;
  }

  private complete(slot: Slot): void {
    slot.complete = true;
    this.at++;
    if (this.at > 1024 && this.at * 2 > this.forwarded.length) {
      this.forwarded.splice(0, this.at);
      this.at = 0;
    }
  }
}
