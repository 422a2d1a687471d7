/**
 * The one definition of how a connection's server frames are matched to its requests, in Redis's
 * order. The tap's correlator (an unframed connection) and the frame chain's reply sequencer (a
 * framed one) both extend it, so every connection runs exactly one matcher:
 *
 * - Requests are answered in order; one that expects no reply (CLIENT REPLY OFF/SKIP) is passed
 *   over by the owner's `waiting()`, which calls `passed()` for it: what it changes (HELLO, MONITOR,
 *   RESET) takes effect there, before the frames after it are told apart.
 * - (P/S)SUBSCRIBE with k channels is answered by its k confirmation frames (RESP2 arrays or RESP3
 *   pushes alike). An argument-less (P/S)UNSUBSCRIBE expects one confirmation per subscription at
 *   the time it is next to be answered (at least one). If any other frame comes before all
 *   confirmations did, the command is closed with what it got, so a miscount never leaves it
 *   waiting. Confirmations no request waits for are pushes.
 * - Pushes: every RESP3 `>` frame other than an awaited confirmation; in RESP2 subscribed mode the
 *   message/pmessage/smessage arrays; after MONITOR's +OK the monitor lines; any frame arriving
 *   when no request waits for one ('unmatched').
 * - HELLO 2/3 sets the protocol when its reply is not an error; MONITOR's +OK starts monitor mode;
 *   +RESET resets (reply-modes.ts).
 * - An EXEC whose transaction queued such commands (ExecFollowed) runs them when its reply is an
 *   array (exec-effects.ts): the frames Redis writes after that array (the confirmations beyond one
 *   per queued command) answer the EXEC too, whatever they look like, and it stays outstanding
 *   until the last. An EXECABORT error or a null (WATCH) ran nothing.
 */
import { RespType, type ReplyFrame } from './types.js';
import { CommandKind } from './command-kind.js';
import { runQueuedEffects, type QueuedEffect } from './exec-effects.js';
import { FrameClass, ReplyModes, classifyFrame, confirmationKind, pushKind } from './reply-modes.js';
import { EXPECT_PER_SUBSCRIPTION } from './request-modes.js';

/** What the matcher reads and updates of a request waiting for reply frames. */
export interface AwaitedRequest {
  /** Effective CommandKind (request-modes.ts: MULTI-aware). */
  readonly kind: number;
  /** What HELLO asked for (2 or 3), 0 when no protocol version was given. */
  readonly helloProtocol: number;
  /** Reply frames it expects (EXPECT_PER_SUBSCRIPTION until it is next to be answered). */
  expected: number;
  /** Pub/sub confirmations it got so far. */
  received: number;
  /** An ExecFollowed's queued effects (read only for that kind). */
  queued: readonly QueuedEffect[] | null;
}

export abstract class ReplyMatching<R extends AwaitedRequest> {
  readonly replyModes = new ReplyModes();

  /** The oldest request still waiting for a reply frame, skipping those that expect none; or null. */
  protected abstract waiting(): R | null;
  /** `f` answers `r` (called before `r` can complete). */
  protected abstract answered(r: R, f: ReplyFrame, firstByteNs: number): void;
  /** `r` got all its frames (or was cut short): waiting() goes on with the next request. */
  protected abstract completed(r: R): void;
  /** `f` answers no request: a push of `kind`. */
  protected abstract pushed(f: ReplyFrame, kind: string, firstByteNs: number): void;

  /**
   * Requests answered with nothing that change what later frames are (ReplyModes.changedBySilent),
   * not passed yet: the owners count them in, passed() out; plus one while an EXEC is owed frames.
   * While it is 0, a frame needs no look ahead of its classification.
   */
  protected silentPending = 0;
  /** The EXEC the next `execOwed` frames answer (its surplus, exec-effects.ts), or null. */
  private execOwedTo: R | null = null;
  private execOwed = 0;

  /** `waiting()` passed over `r`, a request answered with nothing. */
  protected passed(r: R): void {
    if (!ReplyModes.changedBySilent(r.kind)) return;
    this.silentPending--;
    this.replyModes.silent(r.kind, r.helloProtocol);
  }

  /** The request the next reply frame answers, or null; resolves an UNSUBSCRIBE-all's count. */
  protected target(): R | null {
    const r = this.waiting();
    if (r !== null && r.expected === EXPECT_PER_SUBSCRIPTION) r.expected = this.replyModes.unsubscribeAllReplies(r.kind);
    return r;
  }

  /** One server frame, in Redis's order, whose first byte arrived at `firstByteNs`. */
  match(f: ReplyFrame, firstByteNs: number): void {
    if (this.silentPending > 0) {
      if (this.execOwedTo !== null) return this.owedFrame(this.execOwedTo, f, firstByteNs);
      // Past the silent requests before this frame, so that what they changed decides what it is.
      this.waiting();
    }
    const modes = this.replyModes;
    const cls = classifyFrame(f, modes);
    if (cls === FrameClass.Confirmation) {
      const kind = confirmationKind(f.head);
      const target = this.target();
      if (target !== null && target.kind === kind) {
        modes.confirmed(kind, f.lastInt);
        this.answered(target, f, firstByteNs);
        target.received++;
        if (target.received >= target.expected) this.completed(target);
        return;
      }
      // Nobody waits for it: a push (the subscriptions did change). Outside pub/sub, a RESP2
      // array that merely starts with "subscribe" is a plain reply.
      if (f.type === RespType.Push || modes.subscribed) {
        modes.confirmed(kind, f.lastInt);
        return this.pushed(f, pushKind(f.head), firstByteNs);
      }
    } else if (cls === FrameClass.Push) {
      return this.pushed(f, pushKind(f.head), firstByteNs);
    } else if (cls === FrameClass.MonitorLine) {
      return this.pushed(f, 'monitor', firstByteNs);
    }
    let target = this.target();
    if (target !== null && target.received > 0) {
      // A pub/sub command cut short of its confirmations: close it; this frame is the next one's.
      this.completed(target);
      target = this.target();
    }
    if (target === null) {
      if (f.type === RespType.Error || f.type === RespType.BlobError) modes.onRefused?.(CommandKind.Normal);
      return this.pushed(f, modes.monitor ? 'monitor' : 'unmatched', firstByteNs);
    }
    this.answered(target, f, firstByteNs);
    // One compare for every reply, as before: the two kinds whose reply says more follow Normal's codes.
    if (target.kind >= CommandKind.ExecFollowed && this.followed(target, f)) return;
    modes.answered(target.kind, target.helloProtocol, f.type);
    this.completed(target);
  }

  /** `target` (an ExecFollowed or a Sync) got its reply `f`: true when this took it over. */
  private followed(target: R, f: ReplyFrame): boolean {
    if (target.kind === CommandKind.ExecFollowed) return this.execRan(target, f);
    // A replica's PSYNC or SYNC answered (an error leaves the connection as it was): what Redis
    // sends from here on is the replication stream, which answers nothing.
    if (f.type === RespType.Error || f.type === RespType.BlobError) return false;
    this.completed(target);
    this.replicationStarted();
    return true;
  }

  /** The connection became a replica's replication stream (its PSYNC or SYNC was answered). */
  protected replicationStarted(): void {}

  /** `exec`'s reply `f` came: runs its queued effects; true if it is owed frames after `f`. */
  private execRan(exec: R, f: ReplyFrame): boolean {
    if (f.type !== RespType.Array || f.elements === undefined || f.elements < 0) return false;
    const surplus = runQueuedEffects(exec.queued ?? [], this.replyModes);
    if (surplus <= 0) return false;
    this.execOwedTo = exec;
    this.execOwed = surplus;
    this.silentPending++;
    return true;
  }

  /** A frame Redis wrote after `exec`'s array, from inside the transaction. */
  private owedFrame(exec: R, f: ReplyFrame, firstByteNs: number): void {
    // A confirmation carries the exact subscription count the effects could only estimate.
    if (f.type === RespType.Push || f.type === RespType.Array) {
      const kind = confirmationKind(f.head);
      if (kind !== 0) this.replyModes.confirmed(kind, f.lastInt);
    }
    this.answered(exec, f, firstByteNs);
    if (--this.execOwed > 0) return;
    this.execOwedTo = null;
    this.silentPending--;
    this.completed(exec);
  }
}
