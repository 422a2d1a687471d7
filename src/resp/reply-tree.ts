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
  const [node, end] = parseAt(buf, 0, 0);
  if (end !== buf.length) throw new RespTreeError(`${buf.length - end} bytes after the frame`);
  return node;
}

function lineEnd(buf: Buffer, at: number): number {
  const eol = buf.indexOf(CRLF, at);
  if (eol < 0) throw new RespTreeError(`no CRLF after offset ${at}`);
  return eol;
}

function parseAt(buf: Buffer, at: number, depth: number): [RespNode, number] {
  if (depth > 64) throw new RespTreeError('nested too deep');
  if (at >= buf.length) throw new RespTreeError('frame ends early');
  const type = String.fromCharCode(buf[at]!);
  const eol = lineEnd(buf, at + 1);
  const line = buf.toString('latin1', at + 1, eol);
  const next = eol + 2;
  switch (type) {
    case '+': case '-': case ':': case ',': case '#': case '(':
      return [{ type, start: at, valueStart: at, end: next, text: buf.toString('latin1', at + 1, eol), items: null }, next];
    case '_':
      return [{ type, start: at, valueStart: at, end: next, text: null, items: null }, next];
    case '$': case '!': case '=': {
      const len = count(line);
      if (len < 0) return [{ type, start: at, valueStart: at, end: next, text: null, items: null }, next];
      const stop = next + len;
      if (stop + 2 > buf.length || buf[stop] !== 0x0d || buf[stop + 1] !== 0x0a) throw new RespTreeError('bad blob length');
      const from = type === '=' ? next + 4 : next;
      if (from > stop) throw new RespTreeError('verbatim string without a format');
      const text = buf.toString('latin1', from, stop);
      const node: RespNode = { type, start: at, valueStart: at, end: stop + 2, text, items: null };
      return [type === '=' ? { ...node, format: buf.toString('latin1', next, next + 3) } : node, stop + 2];
    }
    case '*': case '~': case '>': case '%': case '|': {
      const n = count(line);
      if (n < 0) return [{ type, start: at, valueStart: at, end: next, text: null, items: null }, next];
      const items: RespNode[] = [];
      let pos = next;
      for (let i = 0; i < (type === '%' || type === '|' ? n * 2 : n); i++) {
        const [item, after] = parseAt(buf, pos, depth + 1);
        items.push(item);
        pos = after;
      }
      if (type !== '|') return [{ type, start: at, valueStart: at, end: pos, text: null, items }, pos];
      // An attribute describes the value after it: keep its bytes, hand back that value.
      const [value, after] = parseAt(buf, pos, depth + 1);
      return [{ ...value, start: at }, after];
    }
    default:
      throw new RespTreeError(`type byte ${JSON.stringify(type)} at ${at}`);
  }
}

function count(line: string): number {
  if (!/^(-1|\d{1,10})$/.test(line)) throw new RespTreeError(`bad length ${JSON.stringify(line)}`);
  return Number(line);
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
  const parts: Buffer[] = [];
  let at = 0;
  for (const s of sorted) {
    parts.push(buf.subarray(at, s.start), s.bytes);
    at = s.end;
  }
  parts.push(buf.subarray(at));
  return Buffer.concat(parts);
}
