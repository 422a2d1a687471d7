/**
 * The stage contract: the one interface that faults (toxics), cluster rewriting and the link itself
 * plug into. Each connection has two directions, `up` (client to Redis) and `down` (Redis to
 * client); each direction runs a chain of stages, as toxiproxy runs a chain of toxics per link.
 *
 * Two kinds of stage:
 * - Byte stages see the raw chunks of one direction, in order, and hand them on (now, later,
 *   sliced, or not at all). The delay line and the bandwidth cap are byte stages; so are
 *   toxiproxy's latency, bandwidth, slicer, limit_data, timeout, slow_close and reset_peer.
 * - Frame stages see whole RESP frames, framed by the proxy's framers, and act on request/reply
 *   pairs. On the request side a stage forwards a request, answers it locally (Redis never sees
 *   it), or drops it. On the reply side it passes, replaces or drops a reply. A stage may return a
 *   promise: that frame, and everything behind it in that direction, waits until it settles.
 *   A locally made reply waits for the replies of all earlier requests and pays the link's delays
 *   like a real one, so a pipeline's replies keep their exact order. Correlation stays exact.
 *
 * With no stage beyond the link active on a connection, the proxy keeps its zero-delay fast path
 * (a synchronous write in the read callback): stages cost nothing until someone adds one.
 */
import type { Clock } from '../clock.js';
import type { ReplyModes } from '../resp/reply-modes.js';
import type { Framer, FramerOptions, ReplyFrame, RequestFrame } from '../resp/types.js';

/** `up` = client to Redis, `down` = Redis to client. */
export type Direction = 'up' | 'down';

/** How a stream ends: a FIN after everything before it, or a RST now. */
export type EndKind = 'end' | 'reset';

/** A one-shot timer, reusable: `Scheduler.arm` sets it again without allocating. */
export interface Timer {
  /** When it is due; set by the scheduler when armed. */
  dueNs: number;
  /** Position in the scheduler's heap; -1 when not scheduled. */
  index: number;
  /** The scheduler's budget window it last fired in (to count the timers firing at once); -1 at first. */
  firedWindow: number;
  readonly fire: () => void;
}

/**
 * The loop's account where a run of poll turns ended: its end, libuv's idle time then (ms), and the
 * scheduler's poll and busy-wait totals (ns). A loop that slept after it had nothing left to read.
 */
export interface PollRunEnd {
  endNs: number;
  idleMs: number;
  pollNs: number;
  spunNs: number;
}

/** What stages need from a scheduler: call fire() no earlier than dueNs, as close to it as possible. */
export interface Scheduler {
  readonly clock: Clock;
  /** A new timer, armed. */
  schedule(dueNs: number, fire: () => void): Timer;
  /** Arms a timer (again) for `dueNs`, without allocating; re-arming an armed one moves it. */
  arm(timer: Timer, dueNs: number): void;
  cancel(timer: Timer): void;
  /** Something was just delivered without a timer: stay awake for what usually follows. */
  delivered?(nowNs: number, source: DeliverySource): void;
  /**
   * A long run of callbacks (a burst of accepts) is under way at `nowNs`: fire the timers due by
   * then now, rather than after all of it.
   */
  catchUp?(nowNs: number): void;
  /** Nanoseconds spent in the scheduler's own poll turns, cumulative (the self-report). */
  readonly pollNs?: number;
  /**
   * How long a main thread that slept `sleptNs` takes to run once woken, ns, as the scheduler
   * learned it from its own wakes after sleeps about that long (a longer sleep wakes later).
   */
  wakeAfterNs?(sleptNs: number): number;
  /** When the scheduler's latest poll turn ended, or -1: a loop asleep since fell asleep after it. */
  readonly lastTurnEndNs?: number;
  /** Where the scheduler's latest run of poll turns ended (endNs -1 before the first). */
  readonly lastRunEnd?: Readonly<PollRunEnd>;
  /** Nanoseconds spent in busy-waits, cumulative (the self-report). */
  readonly spunNs?: number;
  /** libuv's idle time (ms) when the last busy-wait ended. */
  readonly idleAtSpinEndMs?: number;
  /** When the latest poll turn began if it asked for another turn (the loop has not slept since), else -1. */
  readonly chainedPollStartNs?: number;
  /**
   * Calls `listener` after each of the scheduler's own wakes from a sleep, with how late the wake
   * came (ns past the time asked) and the time: a timer's lateness, what an event-loop delay
   * monitor samples, to be had with no wake of the monitor's own. Returns what stops the calls.
   */
  watchWakes?(listener: WakeListener): () => void;
}

/** See `Scheduler.watchWakes`. */
export type WakeListener = (lateNs: number, nowNs: number) => void;

/** Whatever delivers (a delay line). The scheduler stamps it to count how many deliver at once. */
export interface DeliverySource {
  /** The scheduler's activity window this source last delivered in; start at -1. */
  activeWindow: number;
}

/** Where a byte stage hands its output (the next stage, or the socket at the end of the chain). */
export interface ByteSink {
  push(chunk: Buffer, nowNs: number): void;
  end(kind: EndKind, nowNs: number): void;
}

/** What a stage may know and do about the connection it runs on. */
export interface ConnectionContext {
  /** The proxy's connection id (as in /connections). */
  readonly id: number;
  /** Monotonic clock of the proxy's scheduler, nanoseconds. */
  nowNs(): number;
  /** Closes the connection, both sides: 'end' passes a FIN on after what was delivered; 'reset' sends a RST now. */
  close(kind: EndKind): void;
  /** Settles once both sides are closed; a stage holding frames forever releases them here. */
  readonly closed: Promise<void>;
}

/** One direction's byte stage on one connection. */
export interface ByteStage {
  /** A chunk in stream order. Hand it (or its pieces) to the next sink, now or later, in order. */
  push(chunk: Buffer, nowNs: number): void;
  /** End of this direction's stream (FIN or RST), after every chunk pushed before it. */
  end(kind: EndKind, nowNs: number): void;
  /** The stage is being removed from a live connection: hand on everything held, in order, now. */
  drain(nowNs: number): void;
  /** The connection is gone: drop everything held and cancel timers. */
  destroy(): void;
  /** Bytes accepted and not yet handed on (for backpressure). */
  readonly pendingBytes: number;
}

export interface ByteStageFactory {
  readonly kind: 'byte';
  /** Unique on a proxy; toxiproxy's toxic name. */
  readonly name: string;
  readonly direction: Direction;
  create(conn: ConnectionContext, next: ByteSink): ByteStage;
}

/** A request frame as a frame stage sees it. */
export interface RequestInfo {
  /** Position among this connection's requests, from 0. */
  readonly seq: number;
  /** Command name, upper case ('GET', 'CLUSTER'). Empty for an empty inline line. */
  readonly name: string;
  /** Arguments after the name (subcommands included), as sent. */
  readonly args: readonly Buffer[];
  /** The command's first key, as the tap finds it, or undefined. */
  readonly firstKey: Buffer | undefined;
  /** The whole frame as the client sent it. */
  readonly bytes: Buffer;
  /** Queued inside MULTI (EXEC itself is not). */
  readonly inMulti: boolean;
}

export type RequestAction =
  | { readonly kind: 'forward' }
  /** Answer with these RESP bytes; Redis never sees the request. */
  | { readonly kind: 'answer'; readonly reply: Buffer }
  /** Never sent, never answered: the client waits as for a stuck server. */
  | { readonly kind: 'drop' };

/** A reply frame (or push) as a frame stage sees it. */
export interface ReplyInfo {
  /** The request it answers; undefined for pushes and out-of-band frames. */
  readonly request: RequestInfo | undefined;
  /** The whole frame as Redis sent it (or as an earlier stage replaced it). */
  readonly bytes: Buffer;
  /** A RESP3 push or a pub/sub message, not an answer to a request. */
  readonly isPush: boolean;
}

export type ReplyAction =
  | { readonly kind: 'pass' }
  /** Deliver these bytes in its place (one frame, or several to insert). */
  | { readonly kind: 'replace'; readonly reply: Buffer }
  /** Deliver nothing for it. */
  | { readonly kind: 'drop' };

/** One connection's frame stage. Either hook may be absent. */
export interface FrameStage {
  onRequest?(req: RequestInfo): RequestAction | Promise<RequestAction>;
  onReply?(reply: ReplyInfo): ReplyAction | Promise<ReplyAction>;
  /** The connection is gone. */
  destroy?(): void;
}

export interface FrameStageFactory {
  readonly kind: 'frame';
  readonly name: string;
  create(conn: ConnectionContext): FrameStage;
}

export type StageFactory = ByteStageFactory | FrameStageFactory;

/**
 * What a proxy offers for stages (the proxy handle implements it). A stage added here runs on every
 * live connection and on every connection accepted later; removal takes it off all of them, a byte
 * stage first handing on what it holds. Frame stages need a framed connection: one accepted while
 * the proxy had at least one frame stage (register them with `startProxy({ stages })` or before
 * clients connect); an unframed live connection cannot start framing mid-stream and skips them.
 * Byte stages go after the link in their direction (`index` 0 = right after the link); with client
 * TLS the down ones go before the TLS stage and the link, where the bytes are plaintext.
 */
export interface StageHost {
  /** Names are unique per proxy; a duplicate throws ConfigError. `index` in its chain, default last. */
  addStage(stage: StageFactory, index?: number): void;
  /** False when no stage has that name. */
  removeStage(name: string): boolean;
  listStages(): readonly StageFactory[];
}

/**
 * How the frame chain and the reply sequencer match one Redis frame, or make a reply (what the tap
 * reads instead of matching the bytes again). Filled while the frame is matched, read when it goes
 * toward the client.
 */
export interface MatchedReply {
  /** The request it answers (RequestInfo.seq), or -1: a push. */
  readonly seq: number;
  /** The request got all its reply frames with it. */
  readonly completes: boolean;
  /** A pub/sub request this frame cut short of its confirmations (its seq), or -1. */
  readonly cutShort: number;
  /** A push's kind ('message', 'invalidate', 'monitor', 'unmatched', ...); '' for a reply. */
  readonly pushKind: string;
  /** The frame as framed, when the bytes that go toward the client are Redis's, unchanged; else undefined. */
  readonly frame: ReplyFrame | undefined;
}

/**
 * The tap of a framed connection (Tap.framed(), src/tap/framed-feed.ts): it reads the frames the
 * frame chain framed and the matches its sequencer made, so no byte is framed and no reply matched
 * twice.
 */
export interface FramedTap {
  /** What the chain's request framer must collect for the tap (head arguments, argument sizes). */
  readonly requestFramer: FramerOptions;
  /**
   * A client request the chain framed (`name`: requestCommandName), ending at `endOffset` of the
   * client stream, in the chunk pushed at `nowNs`.
   */
  request(frame: RequestFrame, name: string, endOffset: number, nowNs: number): void;
  /** The chain's request framer lost the stream: from here its unparsed bytes are the tap's. */
  requestsDesynced(framer: Framer): void;
  /**
   * The chain stopped framing with both streams still RESP (a request or a reply too long to hold):
   * from here it only hands on the requests its framer still frames, and the tap matches Redis's
   * frames itself.
   */
  unframed(): void;
  /** The client sent a request Redis reads as nothing (a blank line, `*0`): FrameSink.empty. */
  emptyRequest(): void;
  /** From now on the sequencer matches Redis's frames, following these modes. */
  repliesMatched(modes: ReplyModes): void;
  /**
   * The next chunk the chain hands toward the client is this reply or push (`frame` set), or bytes
   * a stage made for it (`frame` undefined: the tap frames them, nobody did).
   */
  nextReply(reply: MatchedReply): void;
  /** A stage dropped this reply: nothing goes toward the client for it. */
  droppedReply(reply: MatchedReply): void;
  /**
   * The chain decided request `seq` (in request order, before any frame answers it): it gets
   * `replies` frames, as the chain's request modes say. `local`: a stage answered it (its one
   * answer, or none under CLIENT REPLY OFF/SKIP), so it changes no mode: Redis never saw it.
   */
  decided(seq: number, replies: number, local: boolean): void;
}
