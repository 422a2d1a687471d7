/**
 * The part of the correlator that follows a framed connection (FramedFeed.framed): the frame
 * chain's sequencer is its matcher, and its chain decides each request after the correlator
 * admitted it. The tap hands on the chain's matches (fedFrame, fedEnd) and decisions (fedDecided);
 * here they become the same reply stamps and counts an unframed connection's own matching gives.
 * Semantics: the header of correlator.ts.
 *
 * A base class of Correlator, not an object of its own, as FramedFeed is of Tap: these run per
 * framed chunk and per decided request, and as methods of the correlator itself they cost no
 * extra object, load or call. What they use of the correlator is declared abstract below.
 */
import { CommandKind } from '../resp/command-kind.js';
import { ReplyModes } from '../resp/reply-modes.js';
import { RequestModes } from '../resp/request-modes.js';
import { unfollowableExec } from '../resp/exec-effects.js';
import { RespType, type ReplyFrame } from '../resp/types.js';
import type { MatchedReply } from '../stage/types.js';
import { runKey } from './blocking.js';
import type { CommandTable } from './command-table.js';
import { RequestLedger } from './request-ledger.js';
import { NOT_YET, type PendingRequest } from './request-ring.js';

export abstract class FramedLedger extends RequestLedger {
  abstract readonly requestModes: RequestModes;
  protected abstract readonly options: { readonly commands: CommandTable };
  /**
   * A framed connection's (FramedFeed.framed): its frame chain decides each request after this
   * correlator admitted it, and may answer one in Redis's place (fedDecided).
   */
  chainDecides = false;

  /**
   * A framed connection's reply frame `f` (or a frame of bytes a stage made), as the sequencer
   * matched it (`m`); `first` is true for the first frame of the chunk `m` stands for.
   */
  fedFrame(m: MatchedReply, f: ReplyFrame, firstByteNs: number, first: boolean): void {
    if (this.frozen) return;
    if (first && m.cutShort >= 0) this.fedComplete(m.cutShort);
    if (m.seq < 0) return this.pushed(f, m.pushKind, firstByteNs);
    const rec = this.recordAt(m.seq);
    if (rec === null) return;
    this.answered(rec, f, firstByteNs);
    // As match() does unframed (ReplyMatching.followed): PSYNC or SYNC answered ends the matching.
    if (rec.kind === CommandKind.Sync && f.type !== RespType.Error && f.type !== RespType.BlobError) {
      this.fedComplete(m.seq);
      this.replicationStarted();
    }
  }

  /** The chunk `m` stands for was read (or dropped by a stage: `dropped`). */
  fedEnd(m: MatchedReply, dropped: boolean): void {
    if (this.frozen) return;
    if (dropped && m.cutShort >= 0) this.fedComplete(m.cutShort);
    if (m.seq >= 0 && m.completes) this.fedComplete(m.seq);
  }

  /**
   * A framed connection's chain decided request `seq`: it gets `replies` frames. Its request modes
   * are the ones Redis follows (a request a stage answered, `local`, changes nothing there, where
   * this correlator admitted it as sent), so they win: a request taken to get none is outstanding
   * from now, one taken to get some that gets none is done. A MULTI, MONITOR or CLIENT REPLY
   * OFF|SKIP answered there never happened: the requests admitted behind it (framed in the same
   * read, before the chain decided it) are admitted again without it (readmitBehind).
   */
  fedDecided(seq: number, replies: number, local: boolean): void {
    if (this.frozen) return;
    const rec = this.recordAt(seq);
    if (rec === null || seq < this.matchAt) return;
    if (local && rec.modesBefore !== null) this.readmitBehind(seq, rec.modesBefore);
    // The chain found this EXEC's transaction unfollowable (exec-effects.ts), and stops framing.
    if (!local && rec.kind === CommandKind.ExecFollowed && unfollowableExec(replies, rec.queued!)) return this.desync();
    if (rec.expected === replies) return;
    const silent = ReplyModes.changedBySilent(rec.kind);
    if (rec.expected === 0) {
      if (silent) this.silentPending--;
      rec.roundTrip = this.trips.expectsAfterAll(this.counters, rec.roundTrip);
    } else if (replies === 0) {
      if (silent) this.silentPending++;
      this.trips.answered(this.counters);
    }
    rec.expected = replies;
  }

  /**
   * A stage answered request `seq` (admitted with the request modes `before`): Redis read an empty
   * request in its place, which changes nothing but uses up a pending skip. The requests behind it
   * are admitted again from there, as Redis reads them: their kind (queued in a transaction Redis
   * never opened, or not), a queued EXEC's effects, whether they block, and the modes that follow.
   * How many replies each gets is the chain's to say, when it decides each (fedDecided).
   */
  private readmitBehind(seq: number, before: RequestModes): void {
    const modes = this.requestModes;
    modes.copyFrom(before);
    modes.empty();
    const ring = this.ring;
    for (let i = seq + 1; i < ring.tail; i++) {
      const r = ring.at(i);
      const kind = modes.inMulti ? modes.inMultiKind(r.baseKind, r.argc, r.helloProtocol) : r.baseKind;
      // Taking the MULTI away only takes requests out of a transaction: one that blocks when run
      // at once was resolved as queued, never the other way round.
      if (!modes.inMulti && r.blocksIfRun && !r.blocking) this.nowBlocking(r);
      if (r.expected === 0) this.silentPending += Number(ReplyModes.changedBySilent(kind)) - Number(ReplyModes.changedBySilent(r.kind));
      r.kind = kind;
      r.modesBefore = undoable(kind) ? new RequestModes() : null;
      r.modesBefore?.copyFrom(modes);
      modes.admit(kind, r.argc);
      if (kind === CommandKind.ExecFollowed) r.queued = modes.takeQueued();
    }
  }

  /** A request counted as queued (not blocking) runs at once and blocks: it counts as blocking. */
  private nowBlocking(r: PendingRequest): void {
    r.entry!.count--;
    r.name = runKey(r.name);
    r.entry = this.options.commands.entry(r.name, true);
    r.entry.count++;
    r.blocking = true;
    this.counters.blockingCommands++;
  }

  /** A framed connection's request `seq` got all its frames: matching goes on after it. */
  private fedComplete(seq: number): void {
    const rec = this.recordAt(seq);
    if (rec === null || seq < this.matchAt) return;
    // A request the sequencer never matched a frame to (its reply dropped by a stage, or one
    // our request modes expected a reply for and Redis's did not) ends as answered with nothing.
    for (let i = this.matchAt; i <= seq; i++) {
      const r = this.ring.at(i);
      if (r.expected !== 0 && r.replyEnd === NOT_YET) {
        r.replyEnd = 0;
        r.firstReplyNs = r.upWrittenNs >= 0 ? r.upWrittenNs : r.arrivedNs;
      }
    }
    this.matchAt = seq + 1;
    this.stampIfWritten(rec);
  }
}

/** Kinds that change the request modes for the requests behind them (a stage may answer them instead). */
export function undoable(kind: number): boolean {
  return kind === CommandKind.Multi || kind === CommandKind.Monitor || kind === CommandKind.ClientReplyOff || kind === CommandKind.ClientReplySkip;
}
