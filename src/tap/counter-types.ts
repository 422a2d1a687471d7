/**
 * What a tap counts and emits: per-connection counters, per-command summaries and the events that
 * --record writes. The tap owns these; stats/ sums them into a StatsSnapshot. Every field is
 * defined in docs/counters.md.
 */
import type { LatencySummary } from '../numbers/histogram.js';

/** Counters kept per connection and summed in `totals`. */
export interface Counters {
  /** Request frames seen from clients (every command, handshake ones included). */
  commands: number;
  /** Reply frames matched to a request. */
  replies: number;
  /** Server frames that answer no request: RESP3 `>` pushes, RESP2 pub/sub messages, MONITOR lines. */
  pushes: number;
  /** Replies that were errors (`-` or `!`). */
  errorReplies: number;
  /** errorReplies by first word: ERR, WRONGTYPE, MOVED, ASK, NOSCRIPT, ... */
  errorsByPrefix: Record<string, number>;
  /** Times the connection went from nothing outstanding to at least one request outstanding. */
  roundTrips: number;
  /** Bursts of requests, each started by the first request after reply bytes went to the client. */
  flights: number;
  /** Most requests outstanding at once. */
  maxDepth: number;
  /** Requests per round trip: key = depth bucket ("1", "2-3", "4-7", ...), value = round trips. */
  depthHistogram: Record<string, number>;
  /** Blocking commands seen (BLPOP, BRPOP, BLMOVE, BZPOPMIN, XREAD/XREADGROUP BLOCK, WAIT, ...). */
  blockingCommands: number;
  bytesUp: number;
  bytesDown: number;
  /** Socket reads from the client. */
  chunksUp: number;
  /** Socket reads from Redis. */
  chunksDown: number;
  /** Bytes the framer could not parse (forwarded all the same). */
  unparsedBytes: number;
}

export interface CommandStats {
  count: number;
  /** Error replies to this command. */
  errors: number;
  /** Request's last byte written to Redis -> reply's first byte back (no injected delay). */
  serverUs: LatencySummary;
  /** Request's last byte at the proxy -> reply's last byte delivered to the client (link included). */
  clientUs: LatencySummary;
  /** True for blocking commands: their latency is the wait, kept apart from normal commands. */
  blocking?: boolean;
}

export interface ConnectionInfo {
  id: number;
  /** Client's address as seen by the proxy ("127.0.0.1:51234"; "unix"; "tcp (closed)": gone before it was read). */
  client: string;
  /** Milliseconds since the epoch when the connection was accepted. */
  openedAtMs: number;
  /** Milliseconds since the epoch when it closed (absent while live). */
  closedAtMs?: number;
  /** Requests sent and not yet answered. */
  outstanding: number;
  /** True when the framer lost sync on this connection (bytes still forwarded). */
  desynced: boolean;
  /**
   * True when the tap stopped timing this connection at the bound on unfinished requests
   * (commands still counted, bytes untouched; see TapHealth).
   */
  degraded?: boolean;
  /**
   * True on a replica's replication stream: its PSYNC or SYNC was answered (or the master's
   * keepalives came first), and the tap matches nothing after it (docs/counters.md). Absent otherwise.
   */
  replication?: true;
  /** Protocol the connection speaks (2 until HELLO 3 succeeds). */
  protocol: 2 | 3;
  /** Pub/sub or MONITOR mode, if entered. */
  mode: 'normal' | 'subscribed' | 'monitor';
  counters: Counters;
  /** Local port of the proxy's socket to Redis for this client (Redis's CLIENT LIST shows it as addr). */
  upstreamLocalPort?: number;
}

/**
 * One finished request, stamped at the proxy (microseconds on the proxy's monotonic clock).
 * Emitted when its reply has been delivered to the client, or when the connection ends without one.
 * This is what --record writes and what `analyze` replays.
 */
export interface CommandEvent {
  type: 'command';
  conn: number;
  /** The CommandStats key it was counted under (blocking XREAD/XREADGROUP read "XREAD BLOCK"). */
  name: string;
  argc: number;
  /** Argument sizes in bytes (only when the framer collects them). */
  argSizes?: number[];
  /** Keyed hash of the first key argument, only when recording with --record-keys hashed. */
  keyHash?: string;
  bytesUp: number;
  bytesDown: number;
  /** Request's last byte reached the proxy. */
  arrivedUs: number;
  /** Request's last byte written to Redis (after the up delay). */
  sentUs: number;
  /** True when the connection closed before the request was written to Redis (sentUs = arrivedUs then). */
  unsent?: boolean;
  /** Reply's first byte back from Redis (undefined if none came). */
  firstReplyUs?: number;
  /** Reply's last byte written to the client (after the down delay). */
  deliveredUs?: number;
  /** Reply type byte as a character ('+', '-', '$', ...), or 'none' (CLIENT REPLY OFF, closed). */
  reply: string;
  errorPrefix?: string;
  blocking?: boolean;
  /**
   * The round trip this request belongs to (1-based per connection); 0 for a request that expects
   * no reply (CLIENT REPLY OFF/SKIP) sent while nothing was outstanding.
   */
  roundTrip: number;
}

export interface PushEvent {
  type: 'push';
  conn: number;
  /** When the push's first byte arrived at the proxy from Redis. */
  atUs: number;
  bytes: number;
  /**
   * pub/sub kind (message, pmessage, smessage, or a stray subscribe/unsubscribe confirmation),
   * 'invalidate' (client-side caching), 'monitor', 'unmatched' (a reply frame no request was
   * waiting for), or 'push' for other RESP3 pushes.
   */
  kind: string;
}

export interface ConnectionEvent {
  type: 'open' | 'close';
  conn: number;
  atUs: number;
  client?: string;
  /** Cluster mode, on open: the real node ("host:port") this connection's listener fronts. */
  node?: string;
  /** Cluster mode, on open: that node's listener, as rewritten replies name it. */
  listen?: string;
}

/**
 * A client's TLS handshake finished (only with listenTls): which version it negotiated and whether it
 * resumed a session, so a recording knows the round trips that connection's set-up cost.
 */
export interface TlsEvent {
  type: 'tls';
  conn: number;
  atUs: number;
  /** As Node names it: "TLSv1.3", "TLSv1.2". */
  version: string;
  /** An abbreviated (resumed) handshake: one round trip on TLS 1.2 instead of two. */
  resumed: boolean;
}

export type TapEvent = CommandEvent | PushEvent | ConnectionEvent | TlsEvent;
