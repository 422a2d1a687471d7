/**
 * The redis-rtt trace: what `redis-rtt proxy --record FILE` writes and `redis-rtt analyze FILE` reads.
 *
 * NDJSON: one JSON object per line, `\n`-terminated, ASCII only. Line 1 is the header; every other line
 * is one event. Times (`t`) are microseconds since the trace started, on the proxy's monotonic clock,
 * rounded to 0.1 us; `sent`, `first` and `dlv` are offsets in microseconds from the same line's `t`.
 *
 *   {"type":"header","format":"redis-rtt-trace","version":1,"startedAt":"2025-01-01T00:00:00.000Z",
 *    "clock":"proxy monotonic us","keys":"none","link":{"upUs":0,"downUs":0,"jitterUs":0,
 *    "jitterDist":"uniform","bandwidthBps":0,"handshake":true},"tool":"redis-rtt 0.1.0"}
 *   {"type":"open","c":1,"t":812.4,"client":"127.0.0.1:52144"}
 *   {"type":"tls","c":1,"t":41230.7,"v":"TLSv1.3"}
 *   {"type":"cmd","c":1,"rt":7,"n":"GET","argc":2,"as":[3,9],"up":27,"down":11,"t":1520.3,"sent":0.9,
 *    "first":48.2,"dlv":61.7,"r":"$"}
 *   {"type":"push","c":2,"t":9120.5,"bytes":52,"kind":"message"}
 *   {"type":"link","t":50000,"link":{...same fields as the header's link...}}
 *   {"type":"nodelink","t":3.1,"node":"127.0.0.1:30002","listen":"127.0.0.1:40123","link":{...}}
 *   {"type":"open","c":7,"t":900.2,"client":"127.0.0.1:52150","node":"127.0.0.1:30002","listen":"127.0.0.1:40123"}
 *   {"type":"close","c":1,"t":90210}
 *   {"type":"truncated","t":120000.2,"bytes":268435300,"reason":"max-bytes"}
 *   {"type":"end","t":130000,"events":2010442,"dropped":1200,"bytes":268435300}
 *
 * Header: `keys` is "none" (no key material at all) or "hashed" (each command's first key as `k`, a keyed
 * HMAC-SHA256 truncated to 16 hex chars; the key of the HMAC is random per trace and never written, so a
 * hash can be compared within one trace but not reversed or matched against a guess offline).
 * `link` is the link in effect when recording started (`handshake`: connection set-up cost one RTT).
 *
 * cmd fields: c connection id; rt round trip number on that connection (1-based: a round trip is a
 * period with at least one request outstanding); n command name as the tap names it ("GET",
 * "CLIENT SETINFO", "CLIENT ?", "?" for unknown; a name that is neither a Redis command nor a module's
 * (FT.SEARCH) is written as "(other)": it could be anything a user typed); argc arguments
 * including the name; as argument sizes in bytes (absent for commands that can carry credentials: AUTH,
 * HELLO, ACL, CONFIG, MIGRATE); k key hash (only with keys "hashed"); up/down request/reply bytes (0 for
 * those same commands: a size would give a password's length); t
 * request's last byte reached the proxy; sent written to Redis; first reply's first byte back from Redis;
 * dlv reply's last byte written to the client (first/dlv absent: no reply); r reply type byte ("+", "-",
 * "$", "*", "%", ... or "none"); err error prefix (ERR, WRONGTYPE, ...); blk 1 for blocking commands;
 * unsent 1 when the connection closed before the request reached Redis.
 * Never in a trace: key names, values, arguments, error messages, passwords.
 *
 * tls (proxies with --listen-tls only): the client's TLS handshake finished at t; v the version Node
 * negotiated ("TLSv1.3", "TLSv1.2"); resumed 1 for an abbreviated handshake (a resumed session). Added
 * within version 1: a trace without tls lines is all plaintext (or recorded before they existed).
 *
 * Cluster mode (added within version 1): one trace for every node's listener. Connection ids are unique
 * across nodes; each open line names its `node` (the real node, host:port) and its `listen`er. A
 * `nodelink` line gives a node's link when its listener starts and after each change (zones, node
 * links, PUT /link?node=); a connection of that node paid that link, not the header's (which is the
 * base link, the --rtt/--preset flags). A reader that ignores nodelink lines (older ones) prices every
 * node at the header's link. A trace without node fields is a single-node one.
 *
 * Trailers: `truncated` when the size bound was reached (or the disk could not keep up / failed): no
 * event lines follow it. `end` when the recorder was closed cleanly; a trace without it was cut off.
 * The header and event lines fit within --record-max-bytes; the two trailers may add up to 256 bytes.
 *
 * Compatibility: readers reject a `version` they do not know and ignore line types they do not know, so
 * new line types can be added within version 1; changing a field's meaning takes version 2.
 */
import type { LinkSettings } from '../link/types.js';
import { KNOWN_COMMANDS } from '../resp/command-table.js';
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
 * Built as a template, not JSON.stringify: three times faster, and it runs on the proxy's event loop once
 * per command. Safe because every string field is checked against a pattern with no quote or backslash
 * (names, hex hashes, type bytes, error words) and every number is checked finite.
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

export function encodeHeader(startedAt: Date, keys: KeyMode, link: TraceLink, tool: string): string {
  const header: TraceHeader = {
    type: 'header',
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    startedAt: startedAt.toISOString(),
    clock: TRACE_CLOCK,
    keys,
    link: pickLink(link),
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
    handshake: l.handshake,
  };
}
