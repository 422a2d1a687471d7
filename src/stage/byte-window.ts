/**
 * The bytes of a stream not yet cut into frames, kept as the chunks they came in, so a large frame
 * arriving in many chunks is copied once when it completes (not once per chunk).
 */
export class ByteWindow {
  private readonly chunks: Buffer[] = [];
  /** Absolute offset of chunks[0]'s first byte. */
  private start = 0;
  private size = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** Bytes [from, to) of the stream (absolute offsets inside the window). */
  slice(from: number, to: number): Buffer {
    const parts: Buffer[] = [];
    let at = this.start;
    for (const c of this.chunks) {
      const end = at + c.length;
      if (end > from && at < to) parts.push(c.subarray(Math.max(0, from - at), Math.min(c.length, to - at)));
      if (end >= to) break;
      at = end;
    }
    return parts.length === 1 ? Buffer.from(parts[0]!) : Buffer.concat(parts);
  }

  /** Forgets every whole chunk before `offset`. */
  dropBefore(offset: number): void {
    let n = 0;
    while (n < this.chunks.length && this.start + this.chunks[n]!.length <= offset) {
      this.start += this.chunks[n]!.length;
      this.size -= this.chunks[n]!.length;
      n++;
    }
    if (n > 0) this.chunks.splice(0, n);
  }

  /** Everything from `offset` to the end, and the window emptied. */
  takeFrom(offset: number): Buffer {
    const end = this.start + this.size;
    const rest = offset < end ? this.slice(Math.max(offset, this.start), end) : Buffer.alloc(0);
    this.start = end;
    this.size = 0;
    this.chunks.length = 0;
    return rest;
  }
}
