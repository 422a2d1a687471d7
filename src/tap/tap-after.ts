import type { Direction } from '../stage/types.js';
import type { ConnectionTap } from './types.js';

/** Whatever takes the chunk first: the direction's byte chain. */
export interface ChunkTarget {
  push(chunk: Buffer, nowNs: number): void;
}

/** What of a tap one direction calls: its chunks and its writes. */
export type StreamTap = Pick<ConnectionTap, 'upChunk' | 'upWritten' | 'downChunk' | 'downWritten'>;

export interface TapAfterOptions {
  /** When the bytes really arrived, if not at push() (client TLS: at the raw socket, before the up delay). */
  seenAt?: () => number;
  /** Told before each chunk goes on (the client's stream: where frame stages may start, framing.ts). */
  before?: { beforeRequest(): void };
}

/**
 * Forward first, parse after. A zero-delay chunk is written out inside the chain's push(), and the
 * tap parsing it first would hold the bytes back by its own cost on every hop (docs/measurements.md);
 * so the tap sees the chunk after push() returns, and bytes written inside push() are reported to it
 * then, with the time they actually were.
 *
 * It calls the tap itself, not through callbacks made per connection: each would be one more
 * object touched per chunk, and with hundreds of connections each costs a cache miss
 * (docs/precision.md, "Fewer objects per chunk").
 */
export class TapAfterForward {
  private inPush = false;
  private pendingEnd = -1;
  private pendingNs = 0;
  private readonly up: boolean;
  private readonly seenAt: (() => number) | undefined;
  private readonly before: { beforeRequest(): void } | undefined;

  constructor(
    private readonly target: ChunkTarget,
    private readonly tap: StreamTap,
    direction: Direction,
    o: TapAfterOptions = {},
  ) {
    this.up = direction === 'up';
    this.seenAt = o.seenAt;
    this.before = o.before;
  }

  push(chunk: Buffer, nowNs: number): void {
    if (this.before !== undefined) this.before.beforeRequest();
    this.inPush = true;
    try {
      this.target.push(chunk, nowNs);
    } finally {
      this.inPush = false;
    }
    const seenNs = this.seenAt === undefined ? nowNs : this.seenAt();
    if (this.up) this.tap.upChunk(chunk, seenNs);
    else this.tap.downChunk(chunk, seenNs);
    if (this.pendingEnd >= 0) {
      const end = this.pendingEnd;
      this.pendingEnd = -1;
      this.report(end, this.pendingNs);
    }
  }

  /** The chain wrote bytes up to `endOffset` to its socket at `nowNs`. */
  written(endOffset: number, nowNs: number): void {
    if (this.inPush) {
      this.pendingEnd = endOffset;
      this.pendingNs = nowNs;
      return;
    }
    this.report(endOffset, nowNs);
  }

  private report(endOffset: number, nowNs: number): void {
    if (this.up) this.tap.upWritten(endOffset, nowNs);
    else this.tap.downWritten(endOffset, nowNs);
  }
}
