/**
 * When each down-stream chunk arrived, so a reply frame (reported when its LAST byte is parsed)
 * can be stamped with the arrival of the chunk holding its FIRST byte. Holds only the chunks from
 * the start of the frame being parsed onwards: frames come in stream order, so older chunks are
 * dropped as soon as a frame starts past them. Two parallel Float64Arrays used as a ring.
 */

// 8 doubles (64 bytes) is the largest typed array V8 keeps on its own heap; past it each array gets
// an off-heap backing store, which costs every connection set-up an allocation and a sweep.
const INITIAL_CAPACITY = 8;

export class ChunkTimes {
  private starts = new Float64Array(INITIAL_CAPACITY);
  private times = new Float64Array(INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  private head = 0;
  private tail = 0;

  get size(): number {
    return this.tail - this.head;
  }

  /** A chunk whose first byte is at absolute offset `start` arrived at `nowNs`. */
  add(start: number, nowNs: number): void {
    // Empty chunks hold no byte: keeping them would give two entries the same start.
    if (this.tail > this.head && this.starts[(this.tail - 1) & this.mask] === start) {
      this.times[(this.tail - 1) & this.mask] = nowNs;
      return;
    }
    if (this.tail - this.head === this.starts.length) this.grow();
    const i = this.tail & this.mask;
    this.starts[i] = start;
    this.times[i] = nowNs;
    this.tail++;
  }

  /**
   * Arrival time of the chunk holding `offset`, dropping the chunks wholly before it. Offsets
   * asked for must not decrease. Returns -1 if no chunk was recorded (cannot happen in use).
   */
  timeAt(offset: number): number {
    while (this.tail - this.head > 1 && (this.starts[(this.head + 1) & this.mask] as number) <= offset) {
      this.head++;
    }
    return this.tail > this.head ? (this.times[this.head & this.mask] as number) : -1;
  }

  clear(): void {
    this.head = 0;
    this.tail = 0;
  }

  private grow(): void {
    const capacity = this.starts.length * 2;
    const starts = new Float64Array(capacity);
    const times = new Float64Array(capacity);
    let j = 0;
    for (let i = this.head; i < this.tail; i++, j++) {
      starts[j] = this.starts[i & this.mask] as number;
      times[j] = this.times[i & this.mask] as number;
    }
    this.starts = starts;
    this.times = times;
    this.mask = capacity - 1;
    this.head = 0;
    this.tail = j;
  }
}
