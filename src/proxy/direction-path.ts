/**
 * One direction of a proxied connection: its byte chain, the socket at its end, and the tap beside
 * it. The chain holds one link and ends in one sink; around the link:
 *
 *   up:   [frame chain] [link] [byte stages...]           client TLS: [link] [tls] [frame chain] [byte stages...]
 *   down: [link] [byte stages...]                         client TLS: [byte stages...] [tls] [link]
 *
 * so that with client TLS the link carries TLS bytes and everything else sees plaintext
 * (src/tls/tls-stage-pair.ts). Reads go into the tap's TapAfterForward, which pushes them into the
 * chain before the tap parses them (on the TLS up side the tap sits at the TLS stage's output);
 * the chain decides the rest (src/stage/byte-chain.ts). A zero-delay chunk is written to the
 * socket inside that push, synchronously in the read callback.
 */
import type net from 'node:net';
import type { DelayLineOptions } from '../link/delay-line.js';
import { LINK_STAGE_NAME, LinkStage } from '../link/link-stage.js';
import { ByteChain } from '../stage/byte-chain.js';
import { FRAME_CHAIN_NAME } from '../stage/frame-chain.js';
import { SocketSink, type WriteReport } from '../stage/socket-sink.js';
import type { ByteSink, ConnectionContext, Direction, EndKind } from '../stage/types.js';
import { TapAfterForward, type ChunkTarget, type StreamTap } from '../tap/tap-after.js';
import { TLS_STAGE_NAME, type TlsStagePair } from '../tls/tls-stage-pair.js';
import type { Backpressure } from './backpressure.js';

export interface DirectionPathOptions {
  direction: Direction;
  context: ConnectionContext;
  socket: net.Socket;
  link: Omit<DelayLineOptions, 'deliver' | 'onEnd'>;
  /** The connection's tap, if the proxy taps; this direction calls its half. */
  tap?: StreamTap;
  /** Client TLS: its stage in this chain, and where the tap's stamps come from. */
  tls?: TlsStagePair;
  /**
   * The client's stream (the up path): its hook before each chunk goes on (plaintext; where frame
   * stages may start), and the offset the tap counts in for a socket offset (frame stages may change
   * lengths). The connection, which passes them on to its framing, not closures of its own.
   */
  clientStream?: ClientStream;
  /** The connection's high-water rule: a write may let a paused side read again. */
  pressure: Pick<Backpressure, 'relieve'>;
  onEnd: (kind: EndKind) => void;
}

/** See DirectionPathOptions.clientStream; framing.ts does both. */
export interface ClientStream {
  beforeRequest(): void;
  clientOffsetAt(endOffset: number): number;
}

/** Stages the proxy keeps at a chain's head and tail; byte stages go between them. */
const HEAD = new Set([FRAME_CHAIN_NAME, LINK_STAGE_NAME]);

export class DirectionPath implements WriteReport {
  readonly chain: ByteChain;
  readonly link: LinkStage;
  /** The socket end of the chain. */
  readonly sink: SocketSink;
  /** Where this direction's reads go. */
  readonly entry: ChunkTarget;
  private readonly head: Set<string>;
  private readonly tail: number;
  private readonly tls: TlsStagePair | undefined;
  private readonly down: boolean;
  private readonly clientStream: ClientStream | undefined;
  private readonly pressure: Pick<Backpressure, 'relieve'>;
  /** When this path last wrote to its socket (-1: not yet): the self-report's read-wait cap (connection.ts). */
  writtenNs = -1;
  /** Where the tap sits in this direction, if it taps. */
  private tapAfter: TapAfterForward | undefined;

  constructor(o: DirectionPathOptions) {
    const tls = (this.tls = o.tls);
    this.down = o.direction === 'down';
    this.clientStream = o.clientStream;
    this.pressure = o.pressure;
    // The sink reports its writes to this path's written(), not to a closure of its own.
    const sink = (this.sink = new SocketSink(o.socket, this, o.onEnd));
    this.chain = new ByteChain(o.context, sink);
    let link: LinkStage | undefined;
    this.chain.add({ name: LINK_STAGE_NAME, create: (_c, next) => (link = new LinkStage(o.link, next)) });
    this.link = link!;
    const tapped = (target: ChunkTarget): ChunkTarget => {
      const client = o.clientStream;
      if (o.tap !== undefined) {
        // Client TLS stamps a request when its TLS bytes came; a reply comes from Redis in plaintext.
        const seenAt = tls && o.direction === 'up' ? () => tls.arrivalNs() : undefined;
        return (this.tapAfter = new TapAfterForward(target, o.tap, o.direction, { seenAt, before: client }));
      }
      return client ? { push: (c, ns) => (client.beforeRequest(), target.push(c, ns)) } : target;
    };
    if (tls === undefined) {
      this.head = HEAD;
      this.tail = 0;
      this.entry = tapped(this.chain);
    } else if (o.direction === 'up') {
      this.head = new Set([...HEAD, TLS_STAGE_NAME]);
      this.tail = 0;
      this.chain.add({ name: TLS_STAGE_NAME, create: (_c, next) => tls.upStage(plaintextOut(next, tapped)) });
      const chain = this.chain;
      this.entry = {
        push: (c, ns) => {
          tls.received(c.length, ns);
          chain.push(c, ns);
        },
      };
    } else {
      this.head = new Set();
      this.tail = 2;
      const report = (end: number, ns: number): void => this.tapAfter?.written(end, ns);
      this.chain.add({ name: TLS_STAGE_NAME, create: (_c, next) => tls.downStage(next, report) }, 0);
      this.entry = tapped(this.chain);
    }
  }

  /** The sink wrote up to `endOffset` at `nowNs` (WriteReport): the tap hears of it, then the high-water rule. */
  written(endOffset: number, nowNs: number): void {
    const tls = this.tls;
    // With client TLS the tap's down stamps come from the TLS stage, when the bytes carrying a reply leave.
    if (tls !== undefined && this.down) tls.written(endOffset, nowNs);
    else if (this.tapAfter !== undefined) {
      const client = this.clientStream;
      this.tapAfter.written(client === undefined ? endOffset : client.clientOffsetAt(endOffset), nowNs);
    }
    this.writtenNs = nowNs;
    this.pressure.relieve();
  }

  /** Where a byte stage goes at `index` among the byte stages (clamped to their range). */
  stageAt(index: number): number {
    const names = this.chain.names;
    let first = 0;
    while (first < names.length && this.head.has(names[first]!)) first++;
    const count = names.length - first - this.tail;
    return first + Math.max(0, Math.min(index, count));
  }

  /** Where the frame chain's request side goes: the head of the up chain, after TLS if any. */
  get frameChainAt(): number {
    return this.tls !== undefined ? this.chain.names.indexOf(TLS_STAGE_NAME) + 1 : 0;
  }

  end(kind: EndKind, nowNs: number): void {
    this.chain.end(kind, nowNs);
  }

  destroy(): void {
    this.chain.destroy();
  }
}

/** The TLS up stage's output: into the tap (which sees plaintext) and on; its end straight on. */
function plaintextOut(next: ByteSink, tapped: (target: ChunkTarget) => ChunkTarget): ByteSink {
  const into = tapped(next);
  return { push: (c, ns) => into.push(c, ns), end: (k, ns) => next.end(k, ns) };
}
