/**
 * One direction of a proxied connection: its byte chain (the link, then any byte stages; on a
 * framed request side the frame chain comes first), the socket at its end, and the tap beside it.
 * Reads go into the tap's TapAfterForward, which pushes them into the chain before the tap parses
 * them; the chain decides the rest (src/stage/byte-chain.ts). A zero-delay chunk is written to the
 * socket inside that push, synchronously in the read callback.
 */
import type net from 'node:net';
import type { DelayLineOptions } from '../link/delay-line.js';
import { LINK_STAGE_NAME, LinkStage } from '../link/link-stage.js';
import { ByteChain } from '../stage/byte-chain.js';
import { SocketSink } from '../stage/socket-sink.js';
import type { ConnectionContext, EndKind } from '../stage/types.js';
import { TapAfterForward, type ChunkTarget } from '../tap/tap-after.js';

export interface DirectionPathOptions {
  context: ConnectionContext;
  socket: net.Socket;
  link: Omit<DelayLineOptions, 'deliver' | 'onEnd'>;
  /** The tap's hooks for this direction, if the proxy taps. */
  tap?: {
    seen: (chunk: Buffer, nowNs: number) => void;
    written: (endOffset: number, nowNs: number) => void;
    /** Where the tap's arrival stamp comes from instead of the read time (a TLS terminator's raw side). */
    seenAt?: () => number;
  };
  /** The tap's written stamp comes from here, once the bytes are written to the raw socket (a TLS terminator). */
  whenWritten?: (report: (nowNs: number) => void) => void;
  /** Bytes were written to the socket (stream offset one past the last), after the tap heard of it. */
  written: (endOffset: number) => void;
  onEnd: (kind: EndKind) => void;
  /** Maps the socket's stream offset to the offset the tap counts in (frame stages may change lengths). */
  tapOffset?: (endOffset: number) => number;
}

export class DirectionPath {
  readonly chain: ByteChain;
  readonly link: LinkStage;
  /** Where this direction's reads go: the tap (which forwards into the chain first), or the chain. */
  readonly entry: ChunkTarget;

  constructor(o: DirectionPathOptions) {
    const tapOffset = o.tapOffset;
    let tap: TapAfterForward | undefined;
    const sink = new SocketSink(
      o.socket,
      (endOffset, nowNs) => {
        if (tap !== undefined) {
          const at = tapOffset ? tapOffset(endOffset) : endOffset;
          const t = tap;
          if (o.whenWritten) o.whenWritten((ns) => t.written(at, ns));
          else t.written(at, nowNs);
        }
        o.written(endOffset);
      },
      o.onEnd,
    );
    this.chain = new ByteChain(o.context, sink);
    let link: LinkStage | undefined;
    this.chain.add({ name: LINK_STAGE_NAME, create: (_c, next) => (link = new LinkStage(o.link, next)) });
    this.link = link!;
    tap = o.tap && new TapAfterForward(this.chain, o.tap.seen, o.tap.written, o.tap.seenAt);
    this.entry = tap ?? this.chain;
  }

  /** Position of the first stage after the link (stages before it: a frame chain's request side). */
  get afterLink(): number {
    return this.chain.names.indexOf(LINK_STAGE_NAME) + 1;
  }

  end(kind: EndKind, nowNs: number): void {
    this.chain.end(kind, nowNs);
  }

  destroy(): void {
    this.chain.destroy();
  }
}
