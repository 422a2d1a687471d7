/**
 * A deliberately different RESP parser for tests: recursive descent over a complete buffer, the
 * obvious way, with no incremental state. Fixture expectations are derived from it, so the
 * framers are checked against a second implementation, not against themselves.
 */

export interface RefValue {
  type: string;
  start: number;
  end: number;
  /** Line content, or blob content (null for `$-1`). */
  text?: Buffer | null;
  int?: number;
  /** Aggregate children, attributes removed (null for `*-1`). */
  children?: RefValue[] | null;
  /** A streamed string (`$?` with `;` chunks). */
  streamed?: boolean;
}

export class Incomplete extends Error {}
export class Invalid extends Error {}

const AGGREGATES = '*%~|>';

export function parseValue(buf: Buffer, pos: number): RefValue {
  const start = pos;
  let attr = readOne(buf, pos);
  while (attr.type === '|') attr = readOne(buf, attr.end);
  return { ...attr, start };
}

/** All complete top-level values from `pos`; stops quietly at an incomplete tail. */
export function parseAll(buf: Buffer, pos = 0): RefValue[] {
  const out: RefValue[] = [];
  while (pos < buf.length) {
    try {
      const v = parseValue(buf, pos);
      out.push(v);
      pos = v.end;
    } catch (e) {
      if (e instanceof Incomplete) break;
      throw e;
    }
  }
  return out;
}

function line(buf: Buffer, pos: number): { text: Buffer; next: number } {
  const cr = buf.indexOf('\r\n', pos);
  if (cr < 0) throw new Incomplete();
  return { text: buf.subarray(pos, cr), next: cr + 2 };
}

function readOne(buf: Buffer, pos: number): RefValue {
  if (pos >= buf.length) throw new Incomplete();
  const type = String.fromCharCode(buf[pos]!);
  const { text, next } = line(buf, pos + 1);
  const s = text.toString('latin1');
  switch (type) {
    case '+': case '-': case ',': case '#': case '_':
      return { type, start: pos, end: next, text };
    case ':': case '(':
      if (!/^[-+]?\d+$/.test(s)) throw new Invalid(`bad integer ${s}`);
      return { type, start: pos, end: next, text, int: Number(s) };
    case '$': case '!': case '=': {
      if (s === '-1' && type === '$') return { type, start: pos, end: next, text: null };
      if (s === '?' && type === '$') return streamedString(buf, pos, next);
      const n = Number(s);
      if (!/^\d+$/.test(s)) throw new Invalid(`bad length ${s}`);
      if (next + n + 2 > buf.length) throw new Incomplete();
      if (buf[next + n] !== 13 || buf[next + n + 1] !== 10) throw new Invalid('bad blob end');
      return { type, start: pos, end: next + n + 2, text: buf.subarray(next, next + n) };
    }
  }
  if (!AGGREGATES.includes(type)) throw new Invalid(`bad type ${type}`);
  if (s === '-1' && type === '*') return { type, start: pos, end: next, children: null };
  const children: RefValue[] = [];
  let at = next;
  if (s === '?') {
    for (;;) {
      if (at >= buf.length) throw new Incomplete();
      if (buf[at] === 0x2e) {
        const end = line(buf, at + 1);
        return { type, start: pos, end: end.next, children };
      }
      const child = parseValue(buf, at);
      children.push(child);
      at = child.end;
    }
  }
  if (!/^\d+$/.test(s)) throw new Invalid(`bad count ${s}`);
  const count = Number(s) * (type === '%' || type === '|' ? 2 : 1);
  for (let i = 0; i < count; i++) {
    const child = parseValue(buf, at);
    children.push(child);
    at = child.end;
  }
  return { type, start: pos, end: at, children };
}

function streamedString(buf: Buffer, pos: number, at: number): RefValue {
  const parts: Buffer[] = [];
  for (;;) {
    if (at >= buf.length) throw new Incomplete();
    if (buf[at] !== 0x3b) throw new Invalid('expected ;');
    const { text, next } = line(buf, at + 1);
    const n = Number(text.toString('latin1'));
    if (n === 0) return { type: '$', start: pos, end: next, text: Buffer.concat(parts), streamed: true };
    if (next + n + 2 > buf.length) throw new Incomplete();
    parts.push(buf.subarray(next, next + n));
    at = next + n + 2;
  }
}

/** The frame a ReplyFramer should report for a top-level value, per the contract in types.ts. */
export interface ExpectedReply {
  start: number;
  end: number;
  type: string;
  errorPrefix?: string;
  simple?: string;
  elements?: number;
  head?: string;
  lastInt?: number;
}

export function summarizeReply(v: RefValue): ExpectedReply {
  const out: ExpectedReply = { start: v.start, end: v.end, type: v.type };
  if (v.type === '-' || v.type === '!') {
    const word = (v.text ?? Buffer.alloc(0)).toString('latin1').split(' ')[0]!;
    // Only a word that can be a Redis error code (upper case, digits, _ and -) is kept: short-text.ts.
    out.errorPrefix = word.length >= 1 && word.length <= 32 && /^[A-Z0-9_-]+$/.test(word) ? word : '?';
  }
  if (v.type === '+' && v.text!.length <= 32) out.simple = v.text!.toString('utf8');
  if (v.type === '*' || v.type === '>') {
    const kids = v.children ?? null;
    out.elements = kids === null ? -1 : kids.length;
    const first = kids?.[0];
    if (first && (first.type === '$' || first.type === '+') && first.text && first.text.length <= 32 && !first.streamed) {
      out.head = first.text.toString('utf8').toLowerCase();
    }
    const last = kids?.[kids.length - 1];
    if (last && last.type === ':') out.lastInt = last.int!;
  }
  return out;
}
