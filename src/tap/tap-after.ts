/** Whatever takes the chunk first: the direction's chain (its link stage is a DelayLine). */
export interface ChunkTarget {
  push(chunk: Buffer, nowNs: number): void;
}

/**
 * Forward first, parse after. A zero-delay chunk is written out inside DelayLine.push(), and the
 * tap parsing it first would hold the bytes back by its own cost on every hop (docs/measurements.md);
 * so the tap sees the chunk after push() returns, and a delivery
 * that happened inside push() is reported to it then, with the time it actually happened.
 */
export class TapAfterForward {
  private inPush = false;
  private heldEnd = -1;
  private heldNs = 0;

  constructor(
    private line: ChunkTarget,
    private readonly seen: (chunk: Buffer, nowNs: number) => void,
    private readonly sent: (endOffset: number, nowNs: number) => void,
    /** When the bytes really arrived, if not at push() (client TLS: at the raw socket, before the up delay). */
    private readonly seenAt?: () => number,
  ) {}

  push(chunk: Buffer, nowNs: number): void {
    this.inPush = true;
    try {
      this.line.push(chunk, nowNs);
    } finally {
      this.inPush = false;
    }
    this.seen(chunk, this.seenAt === undefined ? nowNs : this.seenAt());
    if (this.heldEnd >= 0) {
      const end = this.heldEnd;
      this.heldEnd = -1;
      this.sent(end, this.heldNs);
    }
  }

  /** Feeds another target from the next chunk on (the connection switched its path). */
  retarget(line: ChunkTarget): void {
    this.line = line;
  }

  /** The line delivered bytes up to `endOffset` at `nowNs`. */
  delivered(endOffset: number, nowNs: number): void {
    if (this.inPush) {
      this.heldEnd = endOffset;
      this.heldNs = nowNs;
      return;
    }
    this.sent(endOffset, nowNs);
  }
}
