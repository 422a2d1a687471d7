/**
 * What a transaction's queued commands change once EXEC runs them, as Redis 7.0 does it. Queued,
 * they are plain commands (+QUEUED); at EXEC:
 *
 * - (P)SUBSCRIBE with k channels writes k confirmations, and UNSUBSCRIBE family commands one per
 *   channel named (or per subscription, at least one, with none named); the subscriptions change.
 *   EXEC's reply array holds one element per queued command, so the confirmations beyond one per
 *   command come after it, as frames of their own: EXEC's surplus.
 * - HELLO 2/3 switches the protocol (taken to succeed, as a HELLO with no reply is).
 * - SSUBSCRIBE and MONITOR are refused with an error (not for a client that expects a reply per
 *   command): one frame, nothing changes. RESET is not queued: it ends the transaction.
 * - CLIENT REPLY OFF/ON/SKIP changes which replies Redis writes from inside EXEC's array on, so that
 *   the array takes its elements from the replies to later commands (or ends early): not followed.
 */
import { CommandKind } from './command-kind.js';
import type { ReplyModes } from './reply-modes.js';

/** A queued command that changes what later frames are. */
export interface QueuedEffect {
  readonly kind: number;
  readonly argc: number;
  /** HELLO's protocol argument (2 or 3), 0 when absent or anything else. */
  readonly helloProtocol: number;
}

/** Whether a command of `kind` queued in MULTI does something at EXEC that matching must follow. */
export function isQueuedEffect(kind: number): boolean {
  // PSYNC and SYNC are refused inside MULTI (Redis's no-multi flag): they change nothing there.
  return kind !== CommandKind.Normal && kind !== CommandKind.Auth && kind !== CommandKind.Sync;
}

/**
 * Whether an EXEC of `effects` that expects `expected` reply frames leaves the stream unfollowable:
 * it runs CLIENT REPLY, or it gets no reply (sent under CLIENT REPLY OFF), so that nothing tells
 * whether it ran and the confirmations it makes follow no reply of its own.
 */
export function unfollowableExec(expected: number, effects: readonly QueuedEffect[]): boolean {
  return expected === 0 || effects.some((e) => e.kind >= CommandKind.ClientReplyOn && e.kind <= CommandKind.ClientReplySkip);
}

/**
 * EXEC ran `effects` (its reply was an array): applies them to `modes`, in order, and returns the
 * frames Redis writes after EXEC's array. A subscription count is taken to move by the channels
 * named (new ones on SUBSCRIBE, held ones on UNSUBSCRIBE); a later confirmation carries the exact one.
 */
export function runQueuedEffects(effects: readonly QueuedEffect[], modes: ReplyModes): number {
  let surplus = 0;
  for (const e of effects) {
    const named = e.argc - 1;
    switch (e.kind) {
      case CommandKind.Subscribe:
      case CommandKind.PSubscribe:
        surplus += named - 1;
        modes.confirmed(e.kind, modes.countFor(e.kind) + named);
        break;
      case CommandKind.Unsubscribe:
      case CommandKind.PUnsubscribe:
      case CommandKind.SUnsubscribe: {
        const frames = named > 0 ? named : modes.unsubscribeAllReplies(e.kind);
        surplus += frames - 1;
        const held = modes.heldBy(e.kind);
        modes.confirmed(e.kind, modes.countFor(e.kind) - (named > 0 ? Math.min(named, held) : held));
        break;
      }
      case CommandKind.Hello:
        modes.silent(e.kind, e.helloProtocol);
        break;
    }
  }
  return surplus;
}
