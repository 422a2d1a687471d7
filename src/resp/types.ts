/**
 * What the framer reports. The framer finds frame boundaries in a byte stream; it never owns or
 * re-encodes the bytes (the proxy forwards the original chunks untouched).
 *
 * Offsets are absolute positions in the direction's byte stream (0 = first byte ever seen on that
 * connection in that direction), so the tap can match a frame to the moment the delay line
 * delivered the chunk holding its last byte.
 *
 * Frame objects passed to a sink MAY be reused by the framer for the next frame, and `head`
 * buffers may be views into the caller's chunk: a sink copies what it keeps.
 */

/** RESP type bytes, named once (RESP2 + RESP3). */
export const RespType = {
  SimpleString: 0x2b, // +
  Error: 0x2d, // -
  Integer: 0x3a, // :
  BulkString: 0x24, // $
  Array: 0x2a, // *
  Null: 0x5f, // _
  Boolean: 0x23, // #
  Double: 0x2c, // ,
  BigNumber: 0x28, // (
  BlobError: 0x21, // !
  VerbatimString: 0x3d, // =
  Map: 0x25, // %
  Set: 0x7e, // ~
  Attribute: 0x7c, // |
  Push: 0x3e, // >
} as const;

/** One complete client request (a RESP array of bulk strings, or an inline command line). */
export interface RequestFrame {
  /** Absolute stream offset of the first byte. */
  start: number;
  /** Absolute stream offset one past the last byte. */
  end: number;
  /** True for an inline command (`PING\r\n`). */
  inline: boolean;
  /** Number of arguments including the command name (empty lines and `*0` are never reported). */
  argc: number;
  /**
   * The first arguments (at most `headArgs`, default 3), each cut to at most `headBytes` (default
   * 64) bytes. Enough to name the command (`CLIENT REPLY OFF`) and to hash a key; never a value
   * beyond that cut. Views into the chunk: valid only during the sink call.
   */
  head: Buffer[];
  /** Byte length of every argument, when the framer was built with `argSizes: true`. */
  argSizes?: number[];
}

/** One complete top-level reply or push from the server. */
export interface ReplyFrame {
  start: number;
  end: number;
  /**
   * Type byte of the top-level value. A RESP3 attribute (`|`) is folded into the value that
   * follows it: `start` is the attribute's start, `type` is the value's type.
   */
  type: number;
  /** For `-` and `!`: the first word of the message (ERR, WRONGTYPE, MOVED, NOSCRIPT, ...). */
  errorPrefix?: string;
  /** For `+`: the text when it is at most 32 bytes (OK, QUEUED, PONG); undefined otherwise. */
  simple?: string;
  /** For `*` and `>`: element count (-1 for a RESP2 null array). */
  elements?: number;
  /**
   * For `*` and `>`: the first element in lower case when it is a short (<= 32 bytes) bulk or
   * simple string: identifies pub/sub traffic (message, pmessage, subscribe, unsubscribe, ...).
   */
  head?: string;
  /** For `*` and `>`: the last element when it is an integer (subscription count in pub/sub). */
  lastInt?: number;
}

export interface FrameSink<F> {
  frame(frame: F): void;
  /**
   * The stream stopped being valid RESP at `offset`. Every byte from there on is reported as
   * unparsed; the framer never throws and never stalls the stream.
   */
  desync?(offset: number, reason: string): void;
  /**
   * A request Redis reads as nothing (a blank inline line, `*0`, `*-1`): no frame, no reply, but
   * it uses up a pending CLIENT REPLY SKIP as a command does.
   */
  empty?(): void;
}

export interface FramerOptions {
  /** How many leading request arguments to expose in `head`. @default 3 */
  headArgs?: number;
  /** Maximum bytes kept of each head argument. @default 64 */
  headBytes?: number;
  /** Collect every argument's length in `argSizes`. @default false */
  argSizes?: boolean;
}

/** The contract both framers meet. */
export interface Framer {
  /** Feed the next chunk of the stream. Never throws on bad input. */
  push(chunk: Buffer): void;
  /** Bytes consumed so far (absolute offset of the next byte). */
  readonly offset: number;
  /** True once the stream could not be parsed; all later bytes count as unparsed. */
  readonly desynced: boolean;
  /** Bytes that could not be parsed (from the desync point on). */
  readonly unparsedBytes: number;
}
