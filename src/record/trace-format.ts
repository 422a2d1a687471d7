/**
 * The redis-rtt trace: what `redis-rtt proxy --record FILE` writes and `redis-rtt analyze FILE` reads.
 * NDJSON, one object per line, header first. Every line type and field, the privacy rules (no key names,
 * values or credentials) and the compatibility rules are in docs/trace-format.md: change both together.
 */
import type { LinkSettings } from '../link/types.js';
import { KNOWN_COMMANDS } from '../resp/known-commands.js';
import type { CommandEvent, TapEvent } from '../stats/types.js';

export const TRACE_FORMAT = 'redis-rtt-trace';
export const TRACE_VERSION = 1;
export const TRACE_CLOCK = 'proxy monotonic us';

export type KeyMode = 'none' | 'hashed';
export const KEY_MODES: readonly KeyMode[] = ['none', 'hashed'];

/** The link as a trace records it: the proxy's settings plus whether set-up cost one RTT. */
export interface TraceLink extends LinkSettings {
  handshake: boolean;
}

export interface TraceHeader {
  type: 'header';
  format: typeof TRACE_FORMAT;
  version: number;
  startedAt: string;
  clock: string;
  keys: KeyMode;
  link: TraceLink;
  /**
   * Flags that moved the link while recording without `link` lines of their own (`--rtt-wave`,
   * `--rtt-series`, a `--link-schedule` ramp): the trace holds the links set, not those moves, so analyze
   * cannot price what each round trip paid.
   */
  linkMoves?: string[];
  tool?: string;
}

/** The link changed mid-recording (PUT /link); applies to round trips that start at or after `atUs`. */
export interface LinkChange {
  atUs: number;
  link: TraceLink;
}

/** Cluster mode: one node's link from `atUs` on, for the connections whose open line names `node`. */
export interface NodeLinkChange extends LinkChange {
  node: string;
  listen?: string;
}

export type TruncationReason = 'max-bytes' | 'disk-slow' | 'write-error';

export interface TraceTruncation {
  atUs: number;
  bytes: number;
  reason: TruncationReason;
}

export interface TraceEnd {
  atUs: number;
  events: number;
  dropped: number;
  bytes: number;
}

/** Commands whose arguments may be credentials: their argument sizes and keys are never recorded. */
export const CREDENTIAL_COMMANDS: ReadonlySet<string> = new Set(['AUTH', 'HELLO', 'ACL', 'CONFIG', 'MIGRATE']);

// The tap names commands "GET", "CLIENT SETINFO", "CLIENT ?" or "?" (unknown); anything else is hidden.
const SAFE_NAME = /^(\?|[A-Z][A-Z0-9_.:|-]{0,47}( ([A-Z0-9_.:|-]{1,47}|\?))?)$/;
const KNOWN = new Set(KNOWN_COMMANDS.split(/\s+/).filter((n) => n !== ''));
const SAFE_WORD = /^[A-Za-z0-9_.:|-]{1,48}$/;
/** RESP2/RESP3 type bytes, or "none" when no reply came. */
const REPLY_TYPE = /^(none|[-+:$*%~>|_,#!=(])$/;

/**
 * Command names come from client bytes, and the tap learns names it does not know (typos, module
 * commands): someone typing a password at a redis-cli prompt would make it a "command". So a name is kept
 * only when its command is a known Redis command or looks like a module command (FT.SEARCH, JSON.GET: a
 * dot); anything else is written as "(other)".
 */
export function safeName(name: string): string {
  const upper = name.toUpperCase();
  if (upper === '?') return upper;
  if (!SAFE_NAME.test(upper)) return '(other)';
  const base = upper.split(' ')[0]!;
  return KNOWN.has(base) || /^[A-Z][A-Z0-9_]*\.[A-Z0-9_.]+$/.test(base) ? upper : '(other)';
}

/** Error prefixes (already one of Redis's codes or OTHER, see countErrorReply), push kinds and client addresses: short ASCII words, else dropped. */
export function safeWord(word: string | undefined): string | undefined {
  return word !== undefined && SAFE_WORD.test(word) ? word : undefined;
}

const SAFE_ADDRESS = /^[A-Za-z0-9_.:[\]-]{1,80}$/;

/** A node or listener address ("10.0.0.5:6379", "[::1]:7000", "redis-1.internal:6379"), else dropped. */
export function safeAddress(address: string | undefined): string | undefined {
  return address !== undefined && SAFE_ADDRESS.test(address) ? address : undefined;
}

/** 0.1 us resolution keeps lines short without losing anything the clock can resolve usefully. */
export function roundTenth(us: number): number {
  return Math.round(us * 10) / 10;
}

export function isCredentialCommand(name: string): boolean {
  return CREDENTIAL_COMMANDS.has(name.split(/[| ]/)[0] ?? name);
}

/**
 * One event as a trace line (without the newline). `t0Us` is the trace start on the event's clock.
 * Undefined for a malformed event (a time or size that is not a finite number): it is skipped, since a
 * line the reader would reject must never reach the file.
 */
export function encodeEvent(e: TapEvent, t0Us: number, keys: KeyMode): string | undefined {
  switch (e.type) {
    case 'command':
      return encodeCommand(e, t0Us, keys);
    case 'push':
      if (!Number.isFinite(e.atUs) || !Number.isFinite(e.bytes) || !Number.isFinite(e.conn)) return undefined;
      return JSON.stringify({
        type: 'push',
        c: e.conn,
        t: roundTenth(e.atUs - t0Us),
        bytes: e.bytes,
        kind: safeWord(e.kind) ?? 'push',
      });
    case 'tls': {
      if (!Number.isFinite(e.atUs) || !Number.isFinite(e.conn)) return undefined;
      return JSON.stringify({ type: 'tls', c: e.conn, t: roundTenth(e.atUs - t0Us), v: safeWord(e.version) ?? '?', ...(e.resumed ? { resumed: 1 } : {}) });
    }
    case 'open':
    case 'close': {
      if (!Number.isFinite(e.atUs) || !Number.isFinite(e.conn)) return undefined;
      const line: Record<string, unknown> = { type: e.type, c: e.conn, t: roundTenth(e.atUs - t0Us) };
      const client = safeWord(e.client);
      if (e.type === 'open' && client !== undefined) line.client = client;
      const node = safeAddress(e.node);
      const listen = safeAddress(e.listen);
      if (e.type === 'open' && node !== undefined) line.node = node;
      if (e.type === 'open' && listen !== undefined) line.listen = listen;
      return JSON.stringify(line);
    }
  }
}

/**
 * Built as a template, not JSON.stringify: it runs on the proxy's event loop once per command, and a
 * template skips JSON.stringify's generic walk of the object and its escaping. Safe because every
 * string field is checked against a pattern with no quote or backslash (names, hex hashes, type
 * bytes, error words) and every number is checked finite.
 */
function encodeCommand(e: CommandEvent, t0Us: number, keys: KeyMode): string | undefined {
  const name = safeNameCached(e.name);
  const credentials = isCredentialCommand(name);
  const t = roundTenth(e.arrivedUs - t0Us);
  const sent = roundTenth(e.sentUs - e.arrivedUs);
  const first = e.firstReplyUs === undefined ? undefined : roundTenth(e.firstReplyUs - e.arrivedUs);
  const dlv = e.deliveredUs === undefined ? undefined : roundTenth(e.deliveredUs - e.arrivedUs);
  const sizes = e.argSizes && !credentials ? e.argSizes : undefined;
  const hash = keys === 'hashed' && e.keyHash !== undefined && !credentials && HEX.test(e.keyHash) ? e.keyHash : undefined;
  const err = safeWord(e.errorPrefix);
  const up = credentials ? 0 : e.bytesUp;
  const down = credentials ? 0 : e.bytesDown;
  const nums = [e.conn, e.roundTrip, e.argc, up, down, t, sent, first ?? 0, dlv ?? 0];
  if (!nums.every(Number.isFinite) || (sizes && !sizes.every(Number.isFinite))) return undefined;
  return (
    `{"type":"cmd","c":${e.conn},"rt":${e.roundTrip},"n":"${name}","argc":${e.argc}` +
    (sizes ? `,"as":[${sizes.join(',')}]` : '') +
    (hash !== undefined ? `,"k":"${hash}"` : '') +
    `,"up":${up},"down":${down},"t":${t},"sent":${sent}` +
    (e.unsent ? ',"unsent":1' : '') +
    (first !== undefined ? `,"first":${first}` : '') +
    (dlv !== undefined ? `,"dlv":${dlv}` : '') +
    `,"r":"${REPLY_TYPE.test(e.reply) ? e.reply : '?'}"` +
    (err !== undefined ? `,"err":"${err}"` : '') +
    (e.blocking ? ',"blk":1' : '') +
    '}'
  );
}

const HEX = /^[0-9a-f]{1,64}$/;
const nameCache = new Map<string, string>();

/** The tap interns a bounded set of names, so this cache stays small; capped all the same. */
function safeNameCached(name: string): string {
  let safe = nameCache.get(name);
  if (safe === undefined) {
    safe = safeName(name);
    if (nameCache.size < 4096) nameCache.set(name, safe);
  }
  return safe;
}

export function encodeHeader(startedAt: Date, keys: KeyMode, link: TraceLink, tool: string, linkMoves: readonly string[] = []): string {
  const header: TraceHeader = {
    type: 'header',
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    startedAt: startedAt.toISOString(),
    clock: TRACE_CLOCK,
    keys,
    link: pickLink(link),
    ...(linkMoves.length > 0 ? { linkMoves: [...linkMoves] } : {}),
    tool,
  };
  return JSON.stringify(header);
}

export function encodeLinkChange(atRelUs: number, link: TraceLink): string {
  return JSON.stringify({ type: 'link', t: roundTenth(atRelUs), link: pickLink(link) });
}

export function encodeNodeLink(atRelUs: number, node: string, listen: string | undefined, link: TraceLink): string | undefined {
  const n = safeAddress(node);
  if (n === undefined) return undefined;
  const l = safeAddress(listen);
  return JSON.stringify({ type: 'nodelink', t: roundTenth(atRelUs), node: n, ...(l !== undefined ? { listen: l } : {}), link: pickLink(link) });
}

export function encodeTruncated(t: TraceTruncation): string {
  return JSON.stringify({ type: 'truncated', t: roundTenth(t.atUs), bytes: t.bytes, reason: t.reason });
}

export function encodeEnd(e: TraceEnd): string {
  return JSON.stringify({ type: 'end', t: roundTenth(e.atUs), events: e.events, dropped: e.dropped, bytes: e.bytes });
}

/** Copies only the known link fields, so nothing else a caller put on the object reaches the file. */
function pickLink(l: TraceLink): TraceLink {
  return {
    upUs: l.upUs,
    downUs: l.downUs,
    jitterUs: l.jitterUs,
    jitterDist: l.jitterDist,
    bandwidthBps: l.bandwidthBps,
    // Only a lossy link writes its loss, so traces of loss-free links stay as they were.
    ...(l.lossUp > 0 || l.lossDown > 0 ? { lossUp: l.lossUp, lossDown: l.lossDown, lossBurst: l.lossBurst, mssBytes: l.mssBytes } : {}),
    handshake: l.handshake,
  } as TraceLink;
}

/** Whether `text` opens with a trace's header line: what another reader (report) says it was given instead. */
export function isTraceText(text: string): boolean {
  try {
    const first: unknown = JSON.parse(text.split('\n', 1)[0]!);
    return typeof first === 'object' && first !== null && (first as { format?: unknown }).format === TRACE_FORMAT;
  } catch {
    return false; // not even its first line is JSON: not a trace
  }
}
