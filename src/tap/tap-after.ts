/** Whatever takes the chunk first: the direction's byte chain. */
export interface ChunkTarget {
  push(chunk: Buffer, nowNs: number): void;
}

/**
 * Forward first, parse after. A zero-delay chunk is written out inside the chain's push(), and the
 * tap parsing it first would hold the bytes back by its own cost on every hop (docs/measurements.md);
 * so the tap sees the chunk after push() returns, and bytes written inside push() are reported to it
 * then, with the time they actually were.
 */
export class TapAfterForward {
  private inPush = false;
  private pendingEnd = -1;
  private pendingNs = 0;

  constructor(
    private readonly target: ChunkTarget,
    private readonly seen: (chunk: Buffer, nowNs: number) => void,
    private readonly onWritten: (endOffset: number, nowNs: number) => void,
    /** When the bytes really arrived, if not at push() (client TLS: at the raw socket, before the up delay). */
    private readonly seenAt?: () => number,
  ) {}

  push(chunk: Buffer, nowNs: number): void {
    this.inPush = true;
    try {
      this.target.push(chunk, nowNs);
    } finally {
      this.inPush = false;
    }
    this.seen(chunk, this.seenAt === undefined ? nowNs : this.seenAt());
    if (this.pendingEnd >= 0) {
      const end = this.pendingEnd;
      this.pendingEnd = -1;
      this.onWritten(end, this.pendingNs);
    }
  }

  /** The chain wrote bytes up to `endOffset` to its socket at `nowNs`. */
  written(endOffset: number, nowNs: number): void {
    if (this.inPush) {
      this.pendingEnd = endOffset;
      this.pendingNs = nowNs;
      return;
    }
    this.onWritten(endOffset, nowNs);
  }
}
