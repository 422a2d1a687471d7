import { commandName, commandNameAt, nameReadsPastFirstArg } from './command-name.js';
import { NAME_MAX_BYTES } from './limits.js';
import type { RequestFrame } from './types.js';

const INT32_MAX = 2 ** 31 - 1;

/**
 * Where the first arguments of the request being framed live: in the chunk being pushed when the
 * argument's kept bytes sit in it, else copied to a small scratch area (an argument split across
 * chunks, a decoded inline argument, or any argument of a frame still open when push() returns,
 * because the caller may reuse its chunk once push() is over). A location is one number, so the
 * hot path stores no object reference per argument.
 */
export class HeadSlots {
  /** Slots kept: at least 2, so the command name never depends on `headArgs`. */
  readonly count: number;
  /** Bytes kept per slot: at least NAME_MAX_BYTES, for the same reason. */
  readonly capBytes: number;
  readonly scratch: Buffer;
  /** The chunk being pushed. */
  chunk: Buffer;
  /** `off >= 0`: the bytes are at chunk[off]; `off < 0`: at scratch[-off - 1]. */
  readonly off: Int32Array;
  /** Full length of each argument, up to 2^31 - 1 (the kept bytes are the first min(full, capBytes)). */
  readonly full: Int32Array;
  /** Slots that belong to the frame still open (the rest are stale). */
  filled = 0;
  // The slot whose kept bytes are being copied in from successive reads.
  private pendingSlot = 0;
  private pendingDone = 0;
  private pendingLeft = 0;

  constructor(headArgs: number, headBytes: number) {
    this.count = Math.max(headArgs, 2);
    this.capBytes = Math.max(headBytes, NAME_MAX_BYTES);
    // From Node's shared pool, not zeroed: a slot's bytes are read only after they were copied in,
    // and a fresh zeroed allocation per connection was a measurable part of its set-up.
    this.scratch = Buffer.allocUnsafe(this.count * this.capBytes);
    this.chunk = this.scratch;
    this.off = new Int32Array(this.count);
    this.full = new Int32Array(this.count);
  }

  /**
   * Argument i, `len` bytes long, starts at chunk[data] and the chunk ends at `end`: the slot
   * points into the chunk when its kept bytes are all there, else they will come via feedArg().
   */
  beginArg(i: number, data: number, end: number, len: number): void {
    this.pendingLeft = 0;
    if (i >= this.count) return;
    // An Int32Array, for the hot path's sake; an argument may be longer (proto-max-bulk-len raised).
    // Past 2^31 - 1 it is only ever read cut to capBytes, so the largest int32 reads the same.
    this.full[i] = len <= INT32_MAX ? len : INT32_MAX;
    this.filled = i + 1;
    const want = Math.min(len, this.capBytes);
    if (end - data >= want) {
      this.off[i] = data;
      return;
    }
    this.toScratch(i);
    this.pendingSlot = i;
    this.pendingDone = 0;
    this.pendingLeft = want;
  }

  /** The next `avail` bytes of the argument begun last are at buf[p]: copies what its slot lacks. */
  feedArg(buf: Buffer, p: number, avail: number): void {
    if (this.pendingLeft === 0) return;
    const n = Math.min(avail, this.pendingLeft);
    buf.copy(this.scratch, this.pendingSlot * this.capBytes + this.pendingDone, p, p + n);
    this.pendingDone += n;
    this.pendingLeft -= n;
  }

  /** Slot i's bytes go to scratch; returns where in scratch. */
  toScratch(i: number): number {
    const at = i * this.capBytes;
    this.off[i] = -at - 1;
    return at;
  }

  bufferOf(i: number): Buffer {
    return this.off[i]! >= 0 ? this.chunk : this.scratch;
  }

  startOf(i: number): number {
    const o = this.off[i]!;
    return o >= 0 ? o : -o - 1;
  }

  /** Before push() returns with a frame open: copies its slots that are still in the chunk. */
  pin(): void {
    for (let i = 0; i < this.filled; i++) {
      const o = this.off[i]!;
      if (o < 0) continue;
      const n = Math.min(this.full[i]!, this.capBytes);
      this.chunk.copy(this.scratch, this.toScratch(i), o, o + n);
    }
  }
}

const NO_BYTES = Buffer.alloc(0);

/**
 * The one frame object a RequestFramer hands to its sink, reused for every frame. `head` is made
 * on first read (views cost an allocation each, which the framing hot path must not pay when the
 * sink does not look); it is an own enumerable accessor so `{ ...frame }` and JSON still see it.
 * Internals are #private so copies carry only the contract's fields.
 */
export class RequestFrameImpl implements RequestFrame {
  start = 0;
  end = 0;
  inline = false;
  argc = 0;
  argSizes: number[] | undefined;
  declare head: Buffer[];
  readonly #slots: HeadSlots;
  readonly #headArgs: number;
  readonly #headBytes: number;
  #cache: Buffer[] | null = null;
  /** `start` of the frame #cache belongs to: starts only grow, so this tells frames apart. */
  #cacheStart = -1;
  // The last name that its first argument's bytes alone decide, with those bytes: a connection
  // mostly repeats one command, and comparing a few bytes is cheaper than hashing them. Unknown
  // names are never kept (a later answer may teach the name, see command-name.ts).
  #memoName = '';
  #memoLen = -1;
  /** Pooled, not zeroed (see HeadSlots.scratch): read only up to #memoLen, after they were written. */
  readonly #memoBytes = Buffer.allocUnsafe(NAME_MAX_BYTES);

  constructor(slots: HeadSlots, headArgs: number, headBytes: number, argSizes: boolean) {
    this.#slots = slots;
    this.#headArgs = headArgs;
    this.#headBytes = headBytes;
    this.argSizes = argSizes ? [] : undefined;
    Object.defineProperty(this, 'head', RequestFrameImpl.#headAccessor);
  }

  /**
   * One getter and setter for every frame, not closures per frame: an accessor with other
   * functions gives each frame its own hidden class, and a proxy with 50 connections then made
   * every frame access in the tap megamorphic (`request frames same map: false`; what it cost:
   * docs/measurements.md).
   */
  static readonly #headAccessor: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: RequestFrameImpl): Buffer[] {
      return this.#materializeHead();
    },
    set(this: RequestFrameImpl, value: Buffer[]): void {
      this.#cache = value;
      this.#cacheStart = this.start;
    },
  };

  /** The command name (command-name.ts) straight from the kept bytes, without making `head`. */
  commandName(): string {
    const s = this.#slots;
    const argc = this.argc;
    if (argc < 1) return commandNameAt(NO_BYTES, 0, 0, NO_BYTES, 0, -1);
    const len0 = s.full[0]!;
    const buf0 = s.bufferOf(0);
    const at0 = s.startOf(0);
    if (len0 === this.#memoLen) {
      const memo = this.#memoBytes;
      let i = 0;
      while (i < len0 && buf0[at0 + i] === memo[i]) i++;
      if (i === len0) return this.#memoName;
    }
    const name = argc < 2
      ? commandNameAt(buf0, at0, len0, NO_BYTES, 0, -1)
      : commandNameAt(buf0, at0, len0, s.bufferOf(1), s.startOf(1), s.full[1]!);
    // A known name is at most NAME_MAX_BYTES long, all of them kept in the slot.
    if (!nameReadsPastFirstArg(name)) {
      buf0.copy(this.#memoBytes, 0, at0, at0 + len0);
      this.#memoLen = len0;
      this.#memoName = name;
    }
    return name;
  }

  #materializeHead(): Buffer[] {
    const s = this.#slots;
    if (this.#cache !== null && this.#cacheStart === this.start) return this.#cache;
    const n = Math.min(this.argc, this.#headArgs);
    const head = new Array<Buffer>(n);
    for (let i = 0; i < n; i++) {
      const b = s.bufferOf(i);
      head[i] = Buffer.from(b.buffer, b.byteOffset + s.startOf(i), Math.min(s.full[i]!, this.#headBytes));
    }
    this.#cache = head;
    this.#cacheStart = this.start;
    return head;
  }
}

/**
 * The command name of any request frame: the allocation-free path for frames straight from a
 * RequestFramer, `commandName(head, argc)` for copies.
 */
export function requestCommandName(frame: RequestFrame): string {
  return frame instanceof RequestFrameImpl ? frame.commandName() : commandName(frame.head, frame.argc);
}
