/**
 * The values of one whole RESP frame (RESP2 or RESP3) as a tree of byte spans, and splicing new values
 * into it. The framers find where a frame ends in a stream; this reads what is inside one they found
 * (a frame stage's reply, a raw command's reply). The topology rewriters replace a few leaves; every byte
 * outside a replaced leaf is copied as it came, so a rewrite changes addresses and nothing else.
 *
 * Only whole frames and only what topology and admin replies use: streamed aggregates and strings
 * (`*?`, `$?`) throw, and the caller passes such a reply on unchanged.
 */

export interface RespNode {
  /** Type byte as a character: + - : $ * % ~ > = ! , # _ ( */
  readonly type: string;
  /** Offset of the type byte (of the attribute before it, if any) and one past the last byte. */
  readonly start: number;
  readonly end: number;
  /** Offset of the value's own type byte (after an attribute): a replacement starts here. */
  readonly valueStart: number;
  /** Strings, errors, numbers: the text as latin1 (byte for byte) (for `=`, without its `txt:` format prefix); null for nulls. */
  readonly text: string | null;
  /** Aggregates: the elements (a map's keys and values alternate); null for a null aggregate. */
  readonly items: RespNode[] | null;
  /** Verbatim strings (`=`): the three-letter format before the colon (`txt`). */
  readonly format?: string;
}

/** The bytes are not one whole frame, or not the shape a rewriter expects. */
export class RespTreeError extends Error {}

/** Throws RespTreeError unless `ok`. */
export function expectShape(ok: unknown, what: string): asserts ok {
  if (!ok) throw new RespTreeError(what);
}

const CRLF = '\r\n';

/** Parses the one frame that fills `buf` exactly. Throws RespTreeError when it is not one. */
export function parseFrame(buf: Buffer): RespNode {
  const node = parseAt(buf, 0, 0);
  if (node.end !== buf.length) throw new RespTreeError(`${buf.length - node.end} bytes after the frame`);
  return node;
}

// A fragmented slot map's CLUSTER SLOTS is tens of thousands of short leaves, and a cluster client
// gives it a timeout (ioredis: 1 s to refresh its slots). So the header lines are read here byte
// by byte and a short text is decoded in JS: a native call per line and per leaf (indexOf,
// toString) cost more than the work, as did a tuple per node for the garbage collector.
const SHORT_TEXT = 24;

function lineEnd(buf: Buffer, at: number): number {
  for (let i = at; i + 1 < buf.length; i++) if (buf[i] === 0x0d && buf[i + 1] === 0x0a) return i;
  throw new RespTreeError(`no CRLF after offset ${at}`);
}

function latin1(buf: Buffer, from: number, to: number): string {
  if (to - from > SHORT_TEXT) return buf.toString('latin1', from, to);
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(buf[i]!);
  return s;
}

/** The node that starts at `at`; it ends at its `end`, where the next one starts. */
function parseAt(buf: Buffer, at: number, depth: number): RespNode {
  if (depth > 64) throw new RespTreeError('nested too deep');
  if (at >= buf.length) throw new RespTreeError('frame ends early');
  const type = String.fromCharCode(buf[at]!);
  const eol = lineEnd(buf, at + 1);
  const next = eol + 2;
  switch (type) {
    case '+': case '-': case ':': case ',': case '#': case '(':
      return { type, start: at, valueStart: at, end: next, text: latin1(buf, at + 1, eol), items: null };
    case '_':
      return { type, start: at, valueStart: at, end: next, text: null, items: null };
    case '$': case '!': case '=': {
      const len = count(buf, at + 1, eol);
      if (len < 0) return { type, start: at, valueStart: at, end: next, text: null, items: null };
      const stop = next + len;
      if (stop + 2 > buf.length || buf[stop] !== 0x0d || buf[stop + 1] !== 0x0a) throw new RespTreeError('bad blob length');
      const from = type === '=' ? next + 4 : next;
      if (from > stop) throw new RespTreeError('verbatim string without a format');
      const text = latin1(buf, from, stop);
      const node: RespNode = { type, start: at, valueStart: at, end: stop + 2, text, items: null };
      return type === '=' ? { ...node, format: buf.toString('latin1', next, next + 3) } : node;
    }
    case '*': case '~': case '>': case '%': case '|': {
      const n = count(buf, at + 1, eol);
      if (n < 0) return { type, start: at, valueStart: at, end: next, text: null, items: null };
      const items: RespNode[] = [];
      let pos = next;
      for (let i = 0; i < (type === '%' || type === '|' ? n * 2 : n); i++) {
        const item = parseAt(buf, pos, depth + 1);
        items.push(item);
        pos = item.end;
      }
      if (type !== '|') return { type, start: at, valueStart: at, end: pos, text: null, items };
      // An attribute describes the value after it: keep its bytes, hand back that value.
      return { ...parseAt(buf, pos, depth + 1), start: at };
    }
    default:
      throw new RespTreeError(`type byte ${JSON.stringify(type)} at ${at}`);
  }
}

/** The length on a header line (bytes `from` to `to`): -1, or 1 to 10 digits. */
function count(buf: Buffer, from: number, to: number): number {
  if (to - from === 2 && buf[from] === 0x2d && buf[from + 1] === 0x31) return -1;
  let n = to - from >= 1 && to - from <= 10 ? 0 : -1;
  for (let i = from; i < to && n >= 0; i++) {
    const digit = buf[i]! - 0x30;
    n = digit >= 0 && digit <= 9 ? n * 10 + digit : -1;
  }
  if (n < 0) throw new RespTreeError(`bad length ${JSON.stringify(buf.toString('latin1', from, to))}`);
  return n;
}

/** A map's value for `key` (RESP3 `%`, or the flat key/value array RESP2 uses for maps). */
export function mapGet(node: RespNode, key: string): RespNode | undefined {
  const items = node.items;
  if (!items) return undefined;
  for (let i = 0; i + 1 < items.length; i += 2) if (items[i]!.text === key) return items[i + 1];
  return undefined;
}

/** `text` encoded with the same type as `like`: the bytes that replace it. */
export function encodeLike(like: RespNode, text: string): Buffer {
  const body = Buffer.from(text, 'latin1');
  switch (like.type) {
    case '$': case '!':
      return Buffer.concat([Buffer.from(`${like.type}${body.length}\r\n`), body, Buffer.from(CRLF)]);
    case '=':
      return Buffer.concat([Buffer.from(`=${body.length + 4}\r\n${like.format ?? 'txt'}:`), body, Buffer.from(CRLF)]);
    default:
      return Buffer.from(`${like.type}${text}\r\n`, 'latin1');
  }
}

export interface Splice {
  readonly start: number;
  readonly end: number;
  readonly bytes: Buffer;
}

/** `buf` with each span replaced (spans must not overlap); the same Buffer when there are none. */
export function applySplices(buf: Buffer, splices: readonly Splice[]): Buffer {
  if (splices.length === 0) return buf;
  const sorted = [...splices].sort((a, b) => a.start - b.start);
  let size = buf.length;
  for (const s of sorted) size += s.bytes.length - (s.end - s.start);
  // One copy into one buffer: a part per splice (thousands in a fragmented slot map) is garbage.
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  let to = 0;
  for (const s of sorted) {
    to += buf.copy(out, to, at, s.start);
    to += s.bytes.copy(out, to);
    at = s.end;
  }
  buf.copy(out, to, at);
  return out;
}
