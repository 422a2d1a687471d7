import { Byte, HotLimit } from './bytes.js';
import { InlineLineReader, LINE_CONTINUES, LINE_HAS_NUL, LINE_TOO_LONG, LINE_UNBALANCED } from './inline-line.js';
import { DEFAULT_FRAMER_OPTIONS, REQUEST_MAX_BULK_BYTES } from './limits.js';
import { LENGTH_BAD, LENGTH_ENDED, RedisLength } from './redis-length.js';
import { HeadSlots, RequestFrameImpl } from './request-frame.js';
import { frameWholeRequests, type WholeRequestContext } from './request-fast-path.js';
import type { FrameSink, Framer, FramerOptions, RequestFrame } from './types.js';

export interface RequestFramerOptions extends FramerOptions {
  /**
   * Longest argument accepted, as redis-server's `proto-max-bulk-len`; a longer one is a desync.
   * @default REQUEST_MAX_BULK_BYTES (any length counted exactly)
   */
  maxBulkBytes?: number;
}

// Where the framer stands inside a request that spans chunks.
const enum State {
  Start, // before a request's first byte
  Count, // digits of `*N`
  CountLf, // the byte after the count's CR (Redis skips it unread: any byte will do)
  Dollar, // before an argument's `$`
  BulkLen, // digits of `$L`
  BulkLenLf, // the byte after the length's CR (skipped unread, as CountLf)
  Data, // inside an argument's bytes
  DataCr, // the two bytes after an argument's data: Redis skips them unread (CRLF from any client)
  DataLf,
  Inline, // inside an inline line
  Desync,
}

/**
 * Finds request boundaries in the client->server stream, as redis-server reads it: a request is a
 * `*N` array of `$L` bulk strings or, when its first byte is not `*`, an inline line. Push-driven,
 * no I/O, never throws, resumes at any byte. Argument bytes are skipped by counting: only the
 * first bytes of the first arguments are kept (see HeadSlots).
 *
 * Speed comes from frameWholeRequests() (request-fast-path.ts), which frames every request that
 * lies whole in the chunk; the state machine in `slow()` takes over only for the request a chunk
 * boundary cuts, for inline commands (inline-line.ts) and to name the error of invalid input.
 * Blank inline lines and `*0` / `*-1` are no-ops to Redis: consumed, never reported, so a gap
 * between one frame's `end` and the next frame's `start` holds only such bytes. Like redis-server
 * 7.0 (processMultibulkBuffer), the byte after a header's CR and the two bytes after an argument's
 * data are skipped, not checked: a request Redis executes is never a desync here.
 */
export class RequestFramer implements Framer {
  private readonly sink: FrameSink<RequestFrame>;
  private readonly frame: RequestFrameImpl;
  private readonly slots: HeadSlots;
  private readonly sizes: number[] | undefined;
  private readonly maxBulk: number;
  private readonly whole: WholeRequestContext;
  private readonly inlineLine = new InlineLineReader();
  /** Absolute offset of the current chunk's first byte (= bytes consumed, between pushes). */
  private base = 0;
  private state: State = State.Start;
  private frameStart = 0;
  private readonly length = new RedisLength();
  private argc = 0;
  private argIndex = 0;
  private bulkLeft = 0;
  private unparsed = 0;
  private desyncAt = -1;

  constructor(sink: FrameSink<RequestFrame>, options: RequestFramerOptions = {}) {
    const headArgs = options.headArgs ?? DEFAULT_FRAMER_OPTIONS.headArgs;
    const headBytes = options.headBytes ?? DEFAULT_FRAMER_OPTIONS.headBytes;
    const argSizes = options.argSizes ?? DEFAULT_FRAMER_OPTIONS.argSizes;
    this.sink = sink;
    this.slots = new HeadSlots(headArgs, headBytes);
    this.frame = new RequestFrameImpl(this.slots, headArgs, headBytes, argSizes);
    this.sizes = this.frame.argSizes;
    this.maxBulk = options.maxBulkBytes ?? REQUEST_MAX_BULK_BYTES;
    this.whole = { slots: this.slots, sizes: this.sizes, maxBulk: this.maxBulk, frame: this.frame, sink };
  }

  /** Advances once per push(): inside a sink call it is still the offset of the chunk's start. */
  get offset(): number {
    return this.base;
  }

  get desynced(): boolean {
    return this.state === State.Desync;
  }

  get unparsedBytes(): number {
    return this.unparsed;
  }

  /** Where the stream stopped being valid (the start of the bad request), or -1. */
  get desyncOffset(): number {
    return this.desyncAt;
  }

  push(chunk: Buffer): void {
    const end = chunk.length;
    if (this.state === State.Desync) {
      this.unparsed += end;
      this.base += end;
      return;
    }
    this.slots.chunk = chunk;
    let p = 0;
    while (p < end) {
      if (this.state === State.Start) {
        p = frameWholeRequests(this.whole, chunk, p, this.base);
        if (p >= end) break;
      }
      p = this.slow(chunk, p, end);
    }
    // (desynced, not state: TS keeps this.state narrowed across the calls above)
    if (this.state !== State.Start && !this.desynced) this.slots.pin();
    this.base += end;
  }

  /** The byte-at-a-time state machine: runs until a request ends, the chunk ends, or a desync. */
  private slow(buf: Buffer, p: number, end: number): number {
    while (p < end) {
      switch (this.state) {
        case State.Start:
          this.frameStart = this.base + p;
          this.slots.filled = 0;
          if (buf[p] === Byte.Star) {
            this.state = State.Count;
            this.length.reset();
            p++;
          } else {
            this.state = State.Inline;
          }
          break;
        case State.Count: {
          const r = this.length.take(buf[p]!, true);
          const length = this.length;
          // Any negative count in int64 is an empty request to Redis (string2ll, then `ll <= 0`).
          if (r === LENGTH_BAD || (length.negative ? !length.int64Negative() : length.value > HotLimit.MaxArgs)) {
            return this.fail(end, p, 'invalid multibulk length');
          }
          if (r === LENGTH_ENDED) this.state = State.CountLf;
          p++;
          break;
        }
        case State.CountLf:
          p++;
          if (this.length.negative || this.length.value === 0) {
            this.state = State.Start; // `*0` and `*-1`: Redis reads them and does nothing
            this.sink.empty?.();
            return p;
          }
          this.argc = this.length.value;
          this.argIndex = 0;
          this.slots.filled = 0;
          if (this.sizes !== undefined) this.sizes.length = 0;
          this.state = State.Dollar;
          break;
        case State.Dollar:
          p = this.wholeArgs(buf, p, end);
          if (this.state !== State.Dollar || p >= end) return p;
          if (buf[p] !== Byte.Dollar) return this.fail(end, p, `expected '$', got 0x${buf[p]!.toString(16)}`);
          this.length.reset();
          this.state = State.BulkLen;
          p++;
          break;
        case State.BulkLen: {
          const r = this.length.take(buf[p]!, false);
          if (r === LENGTH_BAD || this.length.value > this.maxBulk) return this.fail(end, p, 'invalid bulk length');
          if (r === LENGTH_ENDED) this.state = State.BulkLenLf;
          p++;
          break;
        }
        case State.BulkLenLf:
          p++;
          this.startArg(p, end, this.length.value);
          this.state = State.Data;
          break;
        case State.Data: {
          const take = Math.min(end - p, this.bulkLeft);
          this.slots.feedArg(buf, p, take);
          p += take;
          this.bulkLeft -= take;
          if (this.bulkLeft === 0) this.state = State.DataCr;
          break;
        }
        case State.DataCr:
          this.state = State.DataLf;
          p++;
          break;
        case State.DataLf:
          p++;
          if (++this.argIndex === this.argc) {
            this.state = State.Start;
            this.emit(p, false);
            return p;
          }
          this.state = State.Dollar;
          break;
        case State.Inline:
          return this.inline(buf, p, end);
        default:
          return end;
      }
    }
    return p;
  }

  /** Inside a multibulk request: takes every argument that lies whole in the chunk. */
  private wholeArgs(buf: Buffer, p: number, end: number): number {
    while (p + 1 < end && buf[p] === Byte.Dollar) {
      let q = p + 1;
      let c = buf[q]!;
      if (c < Byte.D1 || c > Byte.D9) return p;
      let len = c - Byte.D0;
      q++;
      while (q < end && (c = buf[q]!) >= Byte.D0 && c <= Byte.D9) {
        len = len * 10 + (c - Byte.D0);
        q++;
      }
      if (q + 1 >= end || buf[q] !== Byte.CR || buf[q + 1] !== Byte.LF) return p;
      const data = q + 2;
      const dataEnd = data + len;
      if (dataEnd + 1 >= end || len > this.maxBulk) return p;
      if (buf[dataEnd] !== Byte.CR || buf[dataEnd + 1] !== Byte.LF) return p;
      this.startArg(data, end, len);
      p = dataEnd + 2;
      if (++this.argIndex === this.argc) {
        this.state = State.Start;
        this.emit(p, false);
        return p;
      }
    }
    return p;
  }

  private startArg(data: number, end: number, len: number): void {
    this.bulkLeft = len;
    if (this.sizes !== undefined) this.sizes.push(len);
    this.slots.beginArg(this.argIndex, data, end, len);
  }

  private inline(buf: Buffer, p: number, end: number): number {
    const next = this.inlineLine.read(buf, p, end, this.slots, this.sizes);
    if (next === LINE_CONTINUES) return end;
    if (next === LINE_TOO_LONG) return this.fail(end, p, 'inline request longer than 64 KiB');
    if (next === LINE_UNBALANCED) return this.fail(end, p, 'unbalanced quotes in inline request');
    if (next === LINE_HAS_NUL) return this.fail(end, p, 'NUL byte in inline request (Redis never reads past it)');
    this.state = State.Start;
    this.argc = this.inlineLine.argc;
    if (this.argc > 0) this.emit(next, true);
    else this.sink.empty?.(); // a blank line: a no-op to Redis
    return next;
  }

  private emit(endPos: number, inline: boolean): void {
    const frame = this.frame;
    frame.start = this.frameStart;
    frame.end = this.base + endPos;
    frame.inline = inline;
    frame.argc = this.argc;
    this.sink.frame(frame);
  }

  /** Gives up on the stream: everything from the start of the bad request on is unparsed. */
  private fail(end: number, at: number, reason: string): number {
    this.state = State.Desync;
    this.desyncAt = this.frameStart;
    this.unparsed = this.base + end - this.frameStart;
    this.sink.desync?.(this.frameStart, `${reason} (byte ${this.base + at})`);
    return end;
  }
}
