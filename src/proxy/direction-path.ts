/**
 * One direction of a proxied connection: its byte chain (the link first), the socket at its end,
 * and the tap beside it. While the link is the chain's only stage and no frame stage reads this
 * direction, reads go straight into the link's delay line and due bytes straight to the socket,
 * as before there was a chain: a zero-delay chunk is written synchronously in the read callback,
 * with no relay or chain hop between. Adding a stage switches the path to the chain; removing the
 * last one switches it back.
 */
import type net from 'node:net';
import type { DelayLineOptions } from '../link/delay-line.js';
import { ByteChain } from '../stage/byte-chain.js';
import { LINK_STAGE_NAME, LinkStage } from '../link/link-stage.js';
import type { ConnectionContext, EndKind } from '../stage/types.js';
import { SocketSink } from '../stage/socket-sink.js';
import { TapAfterForward, type ChunkTarget } from '../tap/tap-after.js';

export interface DirectionPathOptions {
  context: ConnectionContext;
  socket: net.Socket;
  link: Omit<DelayLineOptions, 'deliver' | 'onEnd'>;
  /** The tap's hooks for this direction, if the proxy taps. */
  tap?: {
    seen: (chunk: Buffer, nowNs: number) => void;
    sent: (endOffset: number, nowNs: number) => void;
    /** Where the tap's arrival stamp comes from instead of the read time (a TLS terminator's raw side). */
    seenAt?: () => number;
  };
  /** The tap's delivery stamp comes from here, once the bytes are on the wire (a TLS terminator). */
  onWire?: (report: (nowNs: number) => void) => void;
  /** Bytes reached the socket (stream offset one past the last), after the tap heard of it. */
  written: (endOffset: number) => void;
  onEnd: (kind: EndKind) => void;
  /** Maps the socket's stream offset to the offset the tap counts in (frame stages may change lengths). */
  tapOffset?: (endOffset: number) => number;
}

export class DirectionPath {
  readonly chain: ByteChain;
  readonly link: LinkStage;
  readonly sink: SocketSink;
  readonly tap: TapAfterForward | undefined;
  /** A frame chain ahead of this direction: the fast path is off for good. */
  private framed = false;
  /** What the tap feeds when a frame chain reads this direction first (the request side). */
  private framedEntry: ChunkTarget | undefined;
  private fast = false;

  constructor(o: DirectionPathOptions) {
    const tapOffset = o.tapOffset;
    this.sink = new SocketSink(
      o.socket,
      (endOffset, nowNs) => {
        const tap = this.tap;
        const at = tapOffset ? tapOffset(endOffset) : endOffset;
        if (tap && o.onWire) o.onWire((t) => tap.delivered(at, t));
        else tap?.delivered(at, nowNs);
        o.written(endOffset);
      },
      o.onEnd,
    );
    this.chain = new ByteChain(o.context, this.sink);
    let link: LinkStage | undefined;
    this.chain.add({ name: LINK_STAGE_NAME, create: (_c, next) => (link = new LinkStage(o.link, next)) });
    this.link = link!;
    this.tap = o.tap ? new TapAfterForward(this.chain, o.tap.seen, o.tap.sent, o.tap.seenAt) : undefined;
    this.entry = this.chain;
    this.chain.onChange = () => this.choosePath();
    this.choosePath();
  }

  /**
   * Where this direction's reads go: the tap, which feeds the link's delay line on the fast path,
   * else the chain (or the frame chain, on a framed request side). Re-read it per chunk.
   */
  entry: ChunkTarget;

  /**
   * A frame chain is on this connection: reads no longer reach the link directly. `tapFeeds` is
   * what the tap hands chunks to when the frame chain comes before the tap's target (requests).
   */
  setFramed(tapFeeds?: ChunkTarget): void {
    this.framed = true;
    this.framedEntry = tapFeeds;
    this.choosePath();
  }

  /** Bytes held by the chain's stages (on the fast path, the link alone). */
  get chainHeldBytes(): number {
    return this.fast ? this.link.pendingBytes : this.chain.pendingBytes;
  }

  end(kind: EndKind, nowNs: number): void {
    (this.fast ? this.link : this.chain).end(kind, nowNs);
  }

  destroy(): void {
    this.chain.destroy();
  }

  private choosePath(): void {
    this.fast = !this.framed && this.chain.onlyStage === this.link;
    this.link.direct = this.fast ? this.sink : undefined;
    const target = this.framedEntry ?? (this.fast ? this.link.line : this.chain);
    this.tap?.retarget(target);
    this.entry = this.tap ?? target;
  }
}
