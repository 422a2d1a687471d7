/**
 * Connection state that decides how many replies a request gets, followed in REQUEST order: the
 * server applies CLIENT REPLY and MULTI in the order it reads commands, so the state at a
 * request's arrival is the state the server will answer it in.
 *
 * - CLIENT REPLY OFF: no reply to it nor to anything after, until CLIENT REPLY ON (which gets +OK)
 *   or RESET (+RESET).
 * - CLIENT REPLY SKIP: no reply to it nor to the next command (ignored while OFF, like Redis), a
 *   RESET included: it clears OFF, not the skip of the command it is. An empty request (a blank
 *   line, `*0`) before the next command takes the skip: Redis resets the client after it too.
 * - Pub/sub confirmations are pushed whatever the reply mode: (P/S)(UN)SUBSCRIBE gets them under
 *   OFF and SKIP too (Redis 7).
 * - MULTI .. EXEC/DISCARD: every queued command gets exactly one reply (+QUEUED or an error) and
 *   none of its special effects apply at queue time (a SUBSCRIBE or BLPOP in a transaction is
 *   queued like any other). Those that change what later frames are take effect at EXEC: they are
 *   kept (exec-effects.ts), EXEC's kind becomes ExecFollowed and its owner takes them with
 *   takeQueued(), for the reply matcher to run when EXEC's reply comes.
 */
import { CommandKind, isPubSubKind } from './command-kind.js';
import { isQueuedEffect, type QueuedEffect } from './exec-effects.js';

/** `expected` value meaning "one confirmation per current subscription", decided later. */
export const EXPECT_PER_SUBSCRIPTION = -1;

export class RequestModes {
  replyOff = false;
  inMulti = false;
  private skipNext = false;
  /**
   * A MONITOR was admitted and Redis did not refuse it: Redis ignores another one without a
   * reply. Taken, in request order, to have succeeded; its error reply clears it
   * (refused()), so only a MONITOR sent behind a refused one before its error came is
   * counted wrong.
   */
  private monitoring = false;
  /** The open transaction's queued commands that act at EXEC, or null while it has none. */
  private queued: QueuedEffect[] | null = null;
  /** Effects of the last EXEC admitted as ExecFollowed, until takeQueued(). */
  private ranQueued: QueuedEffect[] | null = null;

  /** No transaction open and replies on, none to be skipped: a Normal request gets one reply. */
  get plain(): boolean {
    return !this.inMulti && !this.replyOff && !this.skipNext;
  }

  /** Takes over another connection view's state (framing starting on a live connection). */
  copyFrom(o: RequestModes): void {
    this.replyOff = o.replyOff;
    this.inMulti = o.inMulti;
    this.skipNext = o.skipNext;
    this.monitoring = o.monitoring;
    this.queued = o.queued === null ? null : [...o.queued];
  }

  /**
   * The kind a request sent while `inMulti` really has (its owner checks inMulti first, so that a
   * request outside a transaction costs nothing here): only the commands that end the transaction
   * keep theirs, everything else is queued as Normal, and kept if it acts at EXEC
   * (`argc`, and `helloProtocol` for HELLO, say how). EXEC of a transaction that kept some is
   * ExecFollowed.
   */
  inMultiKind(kind: number, argc: number, helloProtocol: number): number {
    if (kind === CommandKind.Exec) return this.queued === null ? kind : CommandKind.ExecFollowed;
    // A MULTI inside one is an error that leaves the transaction open: a command like any other.
    if (kind === CommandKind.Discard || kind === CommandKind.Reset) return kind;
    if (isQueuedEffect(kind)) (this.queued ??= []).push({ kind, argc, helloProtocol });
    return CommandKind.Normal;
  }

  /** The queued effects of the ExecFollowed just admitted, for its reply's matcher. */
  takeQueued(): QueuedEffect[] {
    const q = this.ranQueued ?? [];
    this.ranQueued = null;
    return q;
  }

  /**
   * A MONITOR or a MULTI got an error reply (NOPERM, or not allowed in RESP2 pub/sub): the
   * connection is not monitoring (the next MONITOR is answered), or not in a transaction (what is
   * sent from now on runs at once). Kind Normal: an error reply no request waited for. Under a
   * CLIENT REPLY OFF or SKIP that worked Redis writes no error, so while one is in force (or pending)
   * this error is its refusal: replies are on again, also when requests were sent behind it (those
   * sent before its error came were taken as it being in force).
   */
  refused(kind: number): void {
    if (kind === CommandKind.Monitor) {
      this.monitoring = false;
    } else if (kind === CommandKind.Multi) {
      this.inMulti = false;
      this.queued = null;
    } else if (kind === CommandKind.Normal) {
      // (Not by the last request's kind: a PING pipelined behind a refused OFF left it on for good.)
      if (this.replyOff) this.replyOff = false;
      else this.skipNext = false;
    }
  }

  /** Redis read an empty request (FrameSink.empty): it ends a CLIENT REPLY SKIP as a command does. */
  empty(): void {
    this.skipNext = false;
  }

  /**
   * A request a frame stage answered in Redis's place (Redis reads an empty request instead, which
   * uses up a pending skip as the request would have): whether Redis would have answered it. Not
   * under CLIENT REPLY OFF, nor when a CLIENT REPLY SKIP is pending.
   */
  answeredUnseen(): boolean {
    const skipThis = this.skipNext;
    this.skipNext = false;
    return !this.replyOff && !skipThis;
  }

  /**
   * Reply frames the server will send for a request of (effective) `kind` with `argc` arguments,
   * and the state change it causes. 0: none; k >= 1: that many frames; EXPECT_PER_SUBSCRIPTION:
   * an argument-less UNSUBSCRIBE family command (one confirmation per channel, at least one).
   */
  admit(kind: number, argc: number): number {
    const skipThis = this.skipNext;
    this.skipNext = false;
    switch (kind) {
      case CommandKind.ClientReplyOn:
        this.replyOff = false;
        return 1;
      case CommandKind.Reset:
        // RESET clears OFF before it answers, so +RESET comes then; a skip of RESET itself stays.
        this.replyOff = false;
        this.monitoring = false;
        this.inMulti = false;
        this.queued = null;
        return skipThis ? 0 : 1;
      case CommandKind.ClientReplyOff:
        this.replyOff = true;
        return 0;
      case CommandKind.ClientReplySkip:
        if (!this.replyOff) this.skipNext = true;
        return 0;
      case CommandKind.Monitor:
        // With an argument it is an arity error, answered like any command.
        if (argc !== 1) break;
        if (this.monitoring) return 0;
        this.monitoring = true;
        break;
      case CommandKind.Multi:
        this.inMulti = true;
        break;
      case CommandKind.ExecFollowed:
        this.ranQueued = this.queued;
        this.inMulti = false;
        this.queued = null;
        break;
      case CommandKind.Exec:
      case CommandKind.Discard:
        this.inMulti = false;
        this.queued = null;
        break;
    }
    if (isPubSubKind(kind)) {
      if (argc > 1) return argc - 1;
      if (kind >= CommandKind.Unsubscribe) return EXPECT_PER_SUBSCRIPTION;
      // SUBSCRIBE with no channel is an arity error: one error reply, a reply like any other.
    }
    return this.replyOff || skipThis ? 0 : 1;
  }
}
