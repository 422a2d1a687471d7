/**
 * The frame chain's fall backs and limits: when its stages turn off for a connection (a desync, an
 * EXEC whose replies cannot be followed, a replica's stream, a request or reply too long to hold),
 * how what it holds then goes on, and the close past what may wait behind a reply a stage holds.
 *
 * A base class of FrameChain, not an object of its own, as FramedFeed is of Tap: the per-chunk
 * checks (push, decideQueued) read `passThrough` and `stopping` on the chain itself, with no
 * object, closure or call added between them. What it uses of the chain is declared abstract below.
 */
import { FRAMED_REQUEST_MAX_BYTES, type FramedRequests, type FramedRequestsOptions } from './framed-requests.js';
import type { OffsetMap } from './offset-map.js';
import { FRAMED_REPLY_MAX_BYTES, type ReplySequencer, type ReplySequencerOptions } from './reply-sequencer.js';
import type { ByteSink, ConnectionContext, FramedTap } from './types.js';

/** What the fall backs use of FrameChainOptions (frame-chain.ts, where each is described). */
interface FallBackOptions {
  conn: ConnectionContext;
  up: ByteSink;
  down: ByteSink;
  log: (line: string) => void;
  maxRequestBytes?: number;
  maxReplyBytes?: number;
  tap?: FramedTap;
}

type RequestFallBacks = Pick<FramedRequestsOptions, 'onDesync' | 'onTooLong'>;
type ReplyFallBacks = Pick<ReplySequencerOptions, 'onDesync' | 'onReplication' | 'onTooLong' | 'onCanPassOn' | 'onHeldTooMuch'>;

export abstract class FrameFallBack {
  /** The stages are off: bytes pass unchanged both ways. */
  protected passThrough = false;
  /** An EXEC was forwarded whose replies cannot be followed (exec-effects.ts unfollowableExec). */
  protected unfollowable = false;
  /** Why the chain stops framing once nothing holds a place (fallBackWhenFree); undefined until then. */
  protected stopping: string | undefined;

  protected abstract readonly o: FallBackOptions;
  protected abstract readonly requests: FramedRequests;
  protected abstract readonly replies: ReplySequencer;
  protected abstract readonly offsets: OffsetMap;
  /** A stage's promise decides the oldest request. */
  protected abstract upWaiting: boolean;
  /** The client's end went on to Redis. */
  protected abstract upEndSent: boolean;
  protected abstract maybeEndUp(nowNs: number): void;

  /** The request side's fall backs (FramedRequests options), made once per connection. */
  protected requestFallBacks(): RequestFallBacks {
    const o = this.o;
    return {
      // Decided in runRequests, once the requests framed before the bad one are.
      onDesync: () => void (this.stopping ??= 'stream not valid RESP'),
      onTooLong: () => {
        // Not while a local answer, a drop or a held reply waits (ReplySequencer.canPassOn), nor while a
        // request framed before it is undecided: asked again next chunk.
        if (this.stopping === undefined && this.replies.canPassOn && !this.undecided) this.fallBack(`a request held over ${o.maxRequestBytes ?? FRAMED_REQUEST_MAX_BYTES} bytes`, true);
      },
    };
  }

  /** The reply side's fall backs and limit (ReplySequencer options), made once per connection. */
  protected replyFallBacks(): ReplyFallBacks {
    const o = this.o;
    return {
      onDesync: () => this.fallBack(),
      onReplication: () => this.fallBack('replication stream'),
      // Asked again at Redis's next chunk while a request is undecided.
      onTooLong: () => this.undecided || this.fallBack(`a reply held over ${o.maxReplyBytes ?? FRAMED_REPLY_MAX_BYTES} bytes`, true),
      onCanPassOn: () => this.fallBackWhenFree(),
      onHeldTooMuch: () => {
        // As redis_drop's `close`: the client sees the connection end where its replies stopped.
        o.log(`conn ${o.conn.id}: closed: over ${o.maxReplyBytes ?? FRAMED_REPLY_MAX_BYTES} bytes held behind a reply a frame stage holds`);
        o.conn.close('end');
      },
    };
  }

  /**
   * Falls back for `stopping` once every request decided before it has had its reply through the
   * stages (the EXEC's own aside: its replies are what cannot be followed). Falling back at once,
   * passOn() handed a local answer on ahead of the replies to earlier requests (the client read it
   * as theirs) and a reply a stage holds or was to hold (redis_drop's) on after all. Until then the
   * requests framed before a desync are decided and every reply is sequenced as before, and what
   * follows the bad request (or the EXEC) is held here, unsent: Redis answers what it got, in order.
   * The client's FIN waits behind them (maybeEndUp); after a reset what is held is dropped.
   */
  protected fallBackWhenFree(): void {
    if (this.passThrough) return;
    const r = this.replies;
    const answered = r.canPassOn && r.unansweredRequests <= (this.unfollowable ? 1 : 0);
    r.watchPassOn = this.undecided || !answered;
    if (!r.watchPassOn) this.fallBack(this.stopping);
  }

  /**
   * A stage's promise decides the oldest request, or requests framed are still to be decided (not
   * those after an unfollowable EXEC: they go on unframed). Falling back now would send them to
   * Redis undecided, a stage's answer or drop lost.
   */
  private get undecided(): boolean {
    return this.upWaiting || (!this.unfollowable && this.requests.queue.length > 0);
  }

  protected forwardRaw(chunk: Buffer, nowNs: number): void {
    this.offsets.handedOn(chunk.length, this.offsets.base + this.requests.pushedBytes);
    this.o.up.push(chunk, nowNs);
  }

  /**
   * `tapMatches`: the streams are still RESP, so the tap matches Redis's frames itself from here
   * (FramedTap.unframed): a request or a reply too long to hold; otherwise its framers stop where the
   * chain's did, or it already stopped.
   */
  private fallBack(why = 'stream not valid RESP', tapMatches = false): void {
    if (this.passThrough) return;
    this.passThrough = true;
    this.replies.watchPassOn = false;
    this.o.log(`conn ${this.o.conn.id}: frame stages off (${why}), bytes pass unchanged`);
    if (tapMatches) this.o.tap?.unframed();
    const now = this.o.conn.nowNs();
    // Up: everything not yet decided, then the rest of the stream, unchanged.
    const chunk = this.requests.takeAll();
    if (chunk.length > 0 && !this.upEndSent) this.forwardRaw(chunk, now);
    // Down: what is held, in order, then the rest unchanged.
    const d = this.replies.passOn();
    if (d.length > 0) this.o.down.push(d, now);
    this.maybeEndUp(now);
    this.replies.flush();
  }
}
