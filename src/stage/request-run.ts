/**
 * The request side's run: the framed requests, oldest first, through onRequest of each frame stage,
 * and what each decision does to the stream to Redis, the request modes and the reply slots:
 *   forward: a slot for its replies, its bytes on into the up byte chain (offsets mapped for the tap)
 *   answer:  a stand-in goes up in its place, and a local answer takes its slot (local-answers.ts)
 *   drop:    a slot that never gets a reply
 *
 * A base class of FrameChain, as FrameFallBack is: push() runs the requests on the chain itself, with
 * no object, closure or call added between them. What it uses of the chain is declared abstract below.
 */
import { CommandKind } from '../resp/command-kind.js';
import { RequestModes } from '../resp/request-modes.js';
import { unfollowableExec } from '../resp/exec-effects.js';
import type { FramedRequest } from './framed-requests.js';
import { FrameFallBack } from './frame-fall-back.js';
import { DISCARD, EMPTY_LINE, withStandIn } from './stand-in.js';
import type { LocalAnswers } from './local-answers.js';
import { SlotKind, newSlot } from './reply-slot.js';
import { runStages, type NamedFrameStage } from './run-stages.js';
import type { RequestAction, RequestInfo } from './types.js';

export abstract class RequestRun extends FrameFallBack {
  protected upWaiting = false;
  /** Requests wait for FrameChain.startReplies() (framing started on a live connection). */
  protected holding = false;
  protected seq = 0;
  protected readonly requestModes = new RequestModes();

  abstract readonly stages: NamedFrameStage[];
  protected abstract readonly localAnswers: LocalAnswers;

  /** `first`: a request a stage's promise decided, handed on before the requests queued behind it. */
  protected runRequests(first?: () => void): void {
    this.localAnswers.whileDeciding(() => {
      first?.();
      this.decideQueued();
    });
    if (this.unfollowable) this.stopping ??= 'replies after this EXEC cannot be matched';
    if (this.stopping !== undefined) this.fallBackWhenFree();
    this.maybeEndUp(this.o.conn.nowNs());
  }

  private decideQueued(): void {
    const out: Buffer[] = [];
    while (!this.upWaiting && !this.holding && this.requests.queue.length > 0 && !this.passThrough && !this.unfollowable) {
      const r = this.requests.queue[0]!;
      if (r.info.seq < 0) {
        // EXEC ends the transaction, it is not queued in it: a stage may answer it (decide()).
        const inMulti = this.requestModes.inMulti && r.kind !== CommandKind.Exec;
        (r as { info: RequestInfo }).info = { ...r.info, seq: this.seq++, inMulti };
      }
      const decided = runStages<RequestAction>(this.stages, (s) => s.onRequest?.(r.info), isForward, (a) => {
        this.upWaiting = false;
        // Inside the run: an answer due at once goes after its stand-in went up (a fall back it
        // allows hands on the bytes behind it), and after the requests behind it are decided.
        this.runRequests(() => {
          this.decide(r, a, out);
          this.flushUp(out);
        });
      });
      if (decided === undefined) {
        this.upWaiting = true;
        break;
      }
      this.decide(r, decided, out);
    }
    this.flushUp(out);
  }

  private decide(r: FramedRequest, a: RequestAction, out: Buffer[]): void {
    if (this.requests.queue[0] !== r) return;
    this.requests.shift();
    // Its gap holds an empty request, which Redis reads before it (in request order, as here).
    if (r.afterEmpty) this.requestModes.empty();
    if (a.kind === 'forward') {
      const modes = this.requestModes;
      const argc = r.info.args.length + 1;
      const kind = modes.inMulti ? modes.inMultiKind(r.kind, argc, r.hello) : r.kind;
      const slot = newSlot(SlotKind.Forwarded, r.info, kind, r.hello, modes.admit(kind, argc));
      if (kind === CommandKind.ExecFollowed) {
        const queued = modes.takeQueued();
        slot.queued = queued;
        // Redis's replies from here on cannot be told apart (exec-effects.ts): as after a desync.
        if (unfollowableExec(slot.expected, queued)) this.unfollowable = true;
      }
      this.replies.addSlot(slot);
      this.o.tap?.decided(r.info.seq, slot.expected, false);
      out.push(r.wire);
      this.offsets.handedOn(r.wire.length, r.clientEnd);
    } else if (a.kind === 'answer' && r.kind === CommandKind.Exec && this.requestModes.inMulti) {
      // Left alone, Redis would keep the transaction open and queue what comes next: Redis gets
      // DISCARD in EXEC's place (as Redis discards a transaction whose EXEC it rejects), and its
      // reply, if the client is to get one, is shown as the answer.
      const argc = 1;
      const slot = newSlot(SlotKind.Forwarded, r.info, CommandKind.Discard, 0, this.requestModes.admit(CommandKind.Discard, argc));
      slot.answer = a.reply;
      this.replies.addSlot(slot);
      this.o.tap?.decided(r.info.seq, slot.expected, false);
      this.standIn(r, DISCARD, out);
    } else if (a.kind === 'answer') {
      // Redis reads an empty line in its place (and the blank lines before it): nothing runs, no
      // reply, no MONITOR line, but Redis ends what lasts one command (CLIENT REPLY SKIP, CLIENT
      // CACHING, ASKING) here, as it would have at this request, not at the next one.
      this.standIn(r, EMPTY_LINE, out);
      // Under CLIENT REPLY OFF/SKIP Redis would not have answered it, an error included.
      const answered = this.requestModes.answeredUnseen();
      this.o.tap?.decided(r.info.seq, answered ? 1 : 0, true);
      if (!answered) return;
      const slot = newSlot(SlotKind.Local, r.info, 0, 0, 0);
      slot.local = a.reply;
      this.replies.addSlot(slot);
      this.localAnswers.hold(slot);
    } else {
      this.replies.addSlot(newSlot(SlotKind.Dropped, r.info, 0, 0, 0));
    }
  }

  private standIn(r: FramedRequest, standIn: Buffer, out: Buffer[]): void {
    const wire = withStandIn(r.wire, r.info.bytes.length, standIn);
    out.push(wire);
    this.offsets.handedOn(wire.length, r.clientEnd);
  }

  private flushUp(out: Buffer[]): void {
    if (out.length === 0) return;
    const chunk = out.length === 1 ? out[0]! : Buffer.concat(out);
    out.length = 0;
    this.o.up.push(chunk, this.o.conn.nowNs());
  }
}

const isForward = (a: RequestAction): boolean => a.kind === 'forward';
