import { AggregateStack, STREAMED } from './aggregate-stack.js';
import { Byte } from './bytes.js';
import { REPLY_MAX_LENGTH } from './limits.js';
import { frameWholeReplies } from './reply-fast-path.js';
import { NUMBER_BAD, NUMBER_ENDED, ReplyNumber } from './reply-number.js';
import { ReplySummary } from './reply-summary.js';
import type { FrameSink, Framer, ReplyFrame } from './types.js';

// Where the framer stands inside a value.
const enum State {
  Type, // before a type byte
  LineText, // inside the line of + - , # _ .
  LineNum, // inside the number of : ( and of every length header
  LineLf,
  Blob, // inside the bytes of $ ! = (or of a streamed-string chunk)
  BlobCr,
  BlobLf,
  ChunkType, // inside a streamed string `$?`, before `;N`
  Desync,
}

/**
 * Finds the boundaries of top-level replies and pushes in the server->client stream: every RESP2
 * and RESP3 type, aggregates nested to any depth on an explicit stack (no recursion), streamed
 * aggregates (`*?` ... `.`) and streamed strings (`$?` `;N` ... `;0`), attributes folded into the
 * value they describe. Push-driven, no I/O, never throws, resumes at any byte. Blob bytes are
 * skipped by counting; at most 33 bytes of one value per frame are copied, to name it (see
 * ReplySummary). Whole top-level `+ - : $` replies go through frameWholeReplies() first.
 */
export class ReplyFramer implements Framer {
  private readonly sink: FrameSink<ReplyFrame>;
  private readonly frame: ReplyFrame = {
    start: 0, end: 0, type: 0, errorPrefix: undefined, simple: undefined, elements: undefined, head: undefined,
    lastInt: undefined,
  };
  private base = 0;
  private state: State = State.Type;
  private unparsed = 0;
  private desyncAt = -1;
  // The value being read: its type byte (`;` for a chunk header), line or blob progress.
  private vtype = 0;
  private lineLen = 0;
  private readonly number = new ReplyNumber();
  private blobLeft = 0;
  private blobLen = 0;
  private inStreamedString = false;
  /** Length of the scalar just completed (-1 for a null or streamed string), and its integer. */
  private valLen = 0;
  private intValue = 0;
  private readonly stack = new AggregateStack();
  // The top-level value being read.
  private frameStart = 0;
  private attributePending = false;
  private readonly summary = new ReplySummary();

  constructor(sink: FrameSink<ReplyFrame>) {
    this.sink = sink;
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

  /** Where the stream stopped being valid (the start of the bad top-level value), or -1. */
  get desyncOffset(): number {
    return this.desyncAt;
  }

  /** Between two top-level values: skip() may step over whole frames from here. */
  get atFrameBoundary(): boolean {
    return this.state === State.Type && this.stack.depth === 0 && !this.attributePending;
  }

  /**
   * Steps over `length` bytes of whole frames someone else framed (the frame chain), so the offsets
   * of later frames stay those of the whole stream. Only at a frame boundary (atFrameBoundary).
   */
  skip(length: number): void {
    this.base += length;
  }

  push(chunk: Buffer): void {
    const end = chunk.length;
    if (this.state === State.Desync) {
      this.unparsed += end;
      this.base += end;
      return;
    }
    let p = 0;
    // `desynced`, not `state`: TS would keep this.state narrowed across the calls in the loop.
    while (p < end && !this.desynced) {
      if (this.state === State.Type && this.stack.depth === 0 && !this.attributePending) {
        p = frameWholeReplies(this.frame, this.sink, chunk, p, this.base);
        if (p >= end) break;
      }
      switch (this.state) {
        case State.Type:
          this.startValue(chunk[p]!, p);
          p++;
          break;
        case State.LineText: {
          let q = p;
          while (q < end && chunk[q] !== Byte.CR) q++;
          if (this.summary.capturing) this.summary.keep(chunk, p, q);
          this.lineLen += q - p;
          p = q;
          if (q < end) {
            this.state = State.LineLf;
            p++;
          }
          break;
        }
        case State.LineNum: {
          const isInteger = this.vtype === Byte.Colon || this.vtype === Byte.Paren;
          const r = this.number.read(chunk, p, end, isInteger);
          p = this.number.next;
          if (r === NUMBER_ENDED) this.state = State.LineLf;
          else if (r === NUMBER_BAD) this.fail(p - 1, 'invalid number');
          break;
        }
        case State.LineLf:
          if (chunk[p] !== Byte.LF) {
            this.fail(p, 'expected LF after line');
          } else {
            p++;
            this.lineDone(p);
          }
          break;
        case State.Blob: {
          const take = Math.min(end - p, this.blobLeft);
          if (this.summary.capturing) this.summary.keep(chunk, p, p + take);
          p += take;
          this.blobLeft -= take;
          if (this.blobLeft === 0) this.state = State.BlobCr;
          break;
        }
        case State.BlobCr:
          if (chunk[p] !== Byte.CR) this.fail(p, 'expected CR after blob');
          else this.state = State.BlobLf;
          p++;
          break;
        case State.BlobLf:
          if (chunk[p] !== Byte.LF) {
            this.fail(p, 'expected LF after blob');
          } else if (this.inStreamedString) {
            this.state = State.ChunkType;
          } else {
            this.valLen = this.blobLen;
            this.valueDone(this.vtype, p + 1);
          }
          p++;
          break;
        case State.ChunkType:
          if (chunk[p] !== Byte.Semicolon) {
            this.fail(p, 'expected ; in streamed string');
          } else {
            this.vtype = Byte.Semicolon;
            this.startLine(State.LineNum);
          }
          p++;
          break;
      }
    }
    if (this.desynced) this.unparsed = this.base + end - this.desyncAt;
    this.base += end;
  }

  private startValue(t: number, p: number): void {
    const d = this.stack.depth;
    if (d === 0 && !this.attributePending) this.frameStart = this.base + p;
    const firstOfTop = this.stack.nextIsFirstOfTop();
    this.summary.startValue(t, d, firstOfTop);
    this.vtype = t;
    switch (t) {
      case Byte.Plus: case Byte.Error: case Byte.Comma: case Byte.Hash: case Byte.Underscore: case Byte.Dot:
        this.startLine(State.LineText);
        break;
      case Byte.Colon: case Byte.Paren: case Byte.Dollar: case Byte.Bang: case Byte.Equals:
      case Byte.Star: case Byte.Percent: case Byte.Tilde: case Byte.Pipe: case Byte.Push:
        this.startLine(State.LineNum);
        break;
      default:
        this.fail(p, `unknown type byte 0x${t.toString(16)}`);
    }
  }

  private startLine(state: State): void {
    this.state = state;
    this.lineLen = 0;
    this.number.reset();
  }

  /** A line is complete (`p` is just past its LF): decide what follows. */
  private lineDone(p: number): void {
    const t = this.vtype;
    const { value: n, digits, negative, streamed } = this.number;
    switch (t) {
      case Byte.Plus: case Byte.Error: case Byte.Comma:
        this.valLen = this.lineLen;
        if (t === Byte.Comma && this.lineLen === 0) return this.fail(p, 'empty double');
        return this.valueDone(t, p);
      case Byte.Hash:
        if (this.lineLen !== 1 || (this.summary.firstByte !== 0x74 && this.summary.firstByte !== 0x66)) {
          return this.fail(p, 'invalid boolean'); // #t / #f
        }
        return this.valueDone(t, p);
      case Byte.Underscore:
        if (this.lineLen !== 0) return this.fail(p, 'invalid null');
        return this.valueDone(t, p);
      case Byte.Dot:
        return this.closeStreamed(p);
      case Byte.Colon: case Byte.Paren:
        if (digits === 0) return this.fail(p, 'invalid integer');
        this.intValue = negative ? -n : n;
        return this.valueDone(t, p);
    }
    const lengthOk = streamed ? this.number.lineLen === 1 : digits > 0 && n <= REPLY_MAX_LENGTH;
    if (!lengthOk) return this.fail(p, 'invalid length');
    if (negative && !(n === 1 && digits === 1 && (t === Byte.Dollar || t === Byte.Star))) {
      return this.fail(p, 'invalid length');
    }
    if (t === Byte.Dollar || t === Byte.Bang || t === Byte.Equals || t === Byte.Semicolon) {
      if (negative) {
        this.valLen = -1; // RESP2 null bulk string
        return this.valueDone(Byte.Dollar, p);
      }
      if (streamed) {
        if (t !== Byte.Dollar) return this.fail(p, 'only $ may be streamed');
        this.inStreamedString = true;
        this.state = State.ChunkType;
        return;
      }
      if (t === Byte.Semicolon && n === 0) {
        this.inStreamedString = false;
        this.valLen = -1;
        return this.valueDone(Byte.Dollar, p);
      }
      this.blobLeft = this.blobLen = n;
      this.state = n === 0 ? State.BlobCr : State.Blob;
      return;
    }
    if (t === Byte.Semicolon) return this.fail(p, 'invalid chunk length');
    // An aggregate header: * % ~ | >
    if (this.stack.depth === 0) this.summary.elements = negative ? -1 : streamed ? 0 : n;
    const children = streamed ? STREAMED : t === Byte.Percent || t === Byte.Pipe ? 2 * n : n;
    if (negative || children === 0) return this.valueDone(t, p);
    this.stack.open(t, children);
    this.state = State.Type;
  }

  /** A value ended at `p`: count it in its aggregate, close every aggregate it completes. */
  private valueDone(t: number, p: number): void {
    this.state = State.Type;
    for (;;) {
      const d = this.stack.depth;
      if (d === 0) {
        if (t === Byte.Pipe) this.attributePending = true;
        else this.emit(t, p);
        return;
      }
      if (t === Byte.Pipe) return; // an attribute describes the next value; it is not an element
      if (d === 1) this.summary.topElementDone(t, this.stack.topCount === 0, this.valLen, this.intValue);
      t = this.stack.elementDone();
      if (t === 0) return;
    }
  }

  private closeStreamed(p: number): void {
    if (this.lineLen !== 0 || !this.stack.innermostIsStreamed) return this.fail(p, 'unexpected end marker');
    if (this.stack.depth === 1) this.summary.elements = this.stack.topCount;
    this.valueDone(this.stack.closeStreamed(), p);
  }

  private emit(t: number, p: number): void {
    const f = this.frame;
    f.start = this.frameStart;
    f.end = this.base + p;
    f.type = t;
    this.summary.fill(f, t, this.valLen);
    this.attributePending = false;
    this.sink.frame(f);
  }

  private fail(p: number, reason: string): void {
    this.state = State.Desync;
    this.desyncAt = this.frameStart;
    this.sink.desync?.(this.desyncAt, `${reason} (byte ${this.base + p})`);
  }
}
