/**
 * Maps offsets of the stream the frame chain writes to Redis back to the client's stream, which
 * the tap counts in: a stage that answers or drops a request takes its bytes out of the stream
 * to Redis, so the two differ from the first such request on.
 */
export class OffsetMap {
  /** Offset in the stream to Redis one past what was handed on so far. */
  private outOffset: number;
  // Pairs, oldest first: an end offset in the stream to Redis, and the client offset it stands for.
  private readonly outEnds: number[] = [];
  private readonly clientEnds: number[] = [];
  private lastClientEnd: number;

  /** `base`: the client offset of the first byte the chain sees (bytes before it keep theirs). */
  constructor(readonly base: number) {
    this.outOffset = this.lastClientEnd = base;
  }

  /** `length` bytes went on to Redis; they end at `clientEnd` of the client stream. */
  handedOn(length: number, clientEnd: number): void {
    this.outOffset += length;
    this.outEnds.push(this.outOffset);
    this.clientEnds.push(clientEnd);
  }

  /** The client stream offset the tap knows, for an offset of the stream written to Redis. */
  clientOffsetAt(outOffset: number): number {
    // Bytes that went by unframed before the chain started keep their offsets.
    if (outOffset <= this.base) return outOffset;
    let end = -1;
    while (this.outEnds.length > 0 && this.outEnds[0]! <= outOffset) {
      this.outEnds.shift();
      end = this.clientEnds.shift()!;
    }
    return end < 0 ? this.lastClientEnd : (this.lastClientEnd = end);
  }
}
