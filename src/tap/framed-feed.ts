/**
 * The part of a tap that reads a framed connection (framed(), the FramedTap of stage/types.ts): the
 * frame chain's framers and its sequencer's matcher are the connection's only ones, so the tap
 * takes their request frames and matches, and its own framers see only the bytes nobody else
 * framed (replies a stage made, and the stream after the chain gave up).
 *
 * A base class, not an object of its own, because a chunk toward the client moves the tap's
 * own down-stream offsets and framer: here they are the same fields of the same object, so a
 * framed connection's chunks cost what they did inside Tap. What it uses of the tap is declared
 * abstract below; tap.ts holds them.
 */
import type { ReplyFramer } from '../resp/reply-framer.js';
import type { ReplyModes } from '../resp/reply-modes.js';
import type { RequestFramer } from '../resp/request-framer.js';
import type { Framer, FramerOptions, FrameSink, ReplyFrame } from '../resp/types.js';
import type { FramedTap, MatchedReply } from '../stage/types.js';
import { HEAD_ARGS } from './blocking.js';
import type { ChunkTimes } from './chunk-times.js';
import type { Correlator } from './correlator.js';

export abstract class FramedFeed {
  protected abstract readonly options: Pick<FramerOptions, 'argSizes'>;
  protected abstract readonly correlator: Correlator;
  protected abstract readonly requests: RequestFramer;
  protected abstract readonly replies: ReplyFramer;
  protected abstract readonly replySink: FrameSink<ReplyFrame>;
  protected abstract readonly chunkTimes: ChunkTimes;
  protected abstract downOffset: number;
  protected abstract downFrameEnd: number;
  /** Set on a framed connection: requests come from the frame chain. */
  protected fed: FramedTap | undefined;
  /** Set once the sequencer matches Redis's frames: its modes. */
  protected fedModes: ReplyModes | undefined;
  /** The chain's request framer, once it lost the stream (its unparsed bytes are this tap's). */
  protected fedUpFramer: Framer | undefined;
  /** The match the next chunk toward the client stands for, and the one being framed here. */
  private nextMatch: MatchedReply | undefined;
  private framingMatch: MatchedReply | undefined;
  private framingFirst = false;
  private framingNs = 0;
  private unparsedSeen = 0;
  /** The tap's own reply sink, while the chain's matches replace it (repliesMatched). */
  private ownFrame: FrameSink<ReplyFrame>['frame'] | undefined;

  /**
   * This tap reads the frame chain's frames and matches from now on (FramedTap). `arrivalNs`: when
   * a chunk really arrived, if not when the chain was handed it (client TLS).
   */
  framed(arrivalNs?: () => number): FramedTap {
    const correlator = this.correlator;
    correlator.chainDecides = true;
    this.fed = {
      requestFramer: { headArgs: HEAD_ARGS, argSizes: this.options.argSizes === true },
      request: (f, name, endOffset, nowNs) => correlator.request(f, name, arrivalNs === undefined ? nowNs : arrivalNs(), endOffset),
      emptyRequest: () => correlator.emptyRequest(),
      requestsDesynced: (framer) => {
        this.fedUpFramer = framer;
        // Told when the chain stops framing, maybe after the chunk that desynced it (FrameChain.fallBackWhenFree).
        this.countUnparsed();
        this.matchOwnFrames();
        // As unframed: the requests before the bad one still get their replies (Correlator.requestsEnded).
        correlator.requestsEnded(() => this.chunkTimes.clear());
      },
      unframed: () => {
        correlator.chainDecides = false;
        this.matchOwnFrames();
      },
      repliesMatched: (modes) => {
        // The chain lost the request stream before its replies started (framing started on a live
        // connection): it passes them on unframed, and they are matched here as they were.
        if (correlator.requestsLost) return;
        this.fedModes = modes;
        // The chain's matcher sees a MONITOR or MULTI refused: this tap's request modes follow it too.
        const chainRefused = modes.onRefused;
        modes.onRefused = (kind) => {
          chainRefused?.(kind);
          correlator.requestModes.refused(kind);
        };
        this.ownFrame = this.replySink.frame;
        this.replySink.frame = (f) => this.fedFrame(f);
      },
      nextReply: (m) => (this.nextMatch = m),
      droppedReply: (m) => correlator.fedEnd(m, true),
      decided: (seq, replies, local) => correlator.fedDecided(seq, replies, local),
    };
    return this.fed;
  }

  /**
   * The chain stops framing (its request framer lost the stream, and it passes both directions on
   * unchanged): Redis's frames from here on, those it held included, are framed and matched here,
   * as on an unframed connection, from the modes the chain's matcher had reached. Those can be
   * ahead by what frames it held back had changed; applying a change again does nothing new.
   */
  private matchOwnFrames(): void {
    const modes = this.fedModes;
    if (modes === undefined || this.ownFrame === undefined) return;
    this.correlator.replyModes.copyFrom(modes);
    this.fedModes = undefined;
    this.nextMatch = undefined;
    this.replySink.frame = this.ownFrame;
  }

  /** A chunk toward the client on a framed connection: a frame the chain framed, or bytes to frame here. */
  protected fedDownChunk(chunk: Buffer, nowNs: number): void {
    const m = this.nextMatch;
    this.nextMatch = undefined;
    const start = this.downOffset;
    this.downOffset += chunk.length;
    const f = m?.frame;
    if (f !== undefined && this.replies.atFrameBoundary) {
      this.replies.skip(chunk.length);
      // The sequencer's copy of the frame, placed in the stream toward the client.
      f.start = start;
      f.end = this.downFrameEnd = this.downOffset;
      this.correlator.fedFrame(m!, f, nowNs, true);
      this.correlator.fedEnd(m!, false);
      return;
    }
    // Bytes nobody framed: a reply a stage made, or the stream after the chain stopped framing.
    this.framingMatch = m;
    this.framingFirst = true;
    this.framingNs = nowNs;
    this.replies.push(chunk);
    this.framingMatch = undefined;
    if (m !== undefined) this.correlator.fedEnd(m, false);
    if (this.replies.desynced) this.countUnparsed();
  }

  private fedFrame(f: ReplyFrame): void {
    this.downFrameEnd = f.end;
    const m = this.framingMatch;
    // After the chain stopped framing no match is known: the bytes are counted, not matched.
    if (m === undefined) return;
    this.correlator.fedFrame(m, f, this.framingNs, this.framingFirst);
    this.framingFirst = false;
  }

  /**
   * Adds to unparsedBytes what the framers left unparsed since the last call; up, the chain's
   * request framer's once it lost the stream, else the tap's own.
   */
  protected countUnparsed(): void {
    const total = (this.fedUpFramer ?? this.requests).unparsedBytes + this.replies.unparsedBytes;
    this.correlator.counters.unparsedBytes += total - this.unparsedSeen;
    this.unparsedSeen = total;
  }
}
