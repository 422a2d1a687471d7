import type { Compensation } from '../link/compensation.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { Scheduler, StageFactory, StageHost } from '../stage/types.js';
import type { ToxicSpec } from '../toxics/types.js';
import type { ConnectionInfo, LatencySummary, StatsSnapshot, TapEvent } from '../stats/types.js';
import type { ListenTlsOptions, UpstreamTlsOptions } from '../tls/options.js';
import type { TlsCounters } from '../tls/counters.js';
import type { ClusterProxyOptions } from './cluster-options.js';

/** ClusterProxyOptions: cluster mode (`cluster: 'auto' | 'on'`), see docs/cluster.md. */
export interface ProxyOptions extends ClusterProxyOptions {
  /** Where Redis is: "host:port" or "unix:/path/to.sock". */
  upstream: string;
  /** Where to listen: "host:port" (port 0 = any free port) or a unix socket path. @default "127.0.0.1:0" */
  listen?: string;
  /** Start the HTTP control endpoint here ("127.0.0.1:0" for any free port). @default none */
  control?: string;
  /** When set, control requests must carry `Authorization: Bearer <token>` (compared in constant time). */
  controlToken?: string;
  /**
   * Host names the control endpoint accepts besides its bound address and localhost / 127.0.0.1 /
   * [::1] with its port: `name` (any port) or `name:port`. Bound to 0.0.0.0 or ::, this or a
   * controlToken is required. See docs/SECURITY.md. @default []
   */
  allowHosts?: string[];
  /** Initial link: a preset name and/or explicit settings (explicit ones win). @default no delay */
  link?: LinkUpdate & { preset?: string };
  /** Seed for jitter, so a run can be repeated exactly. @default random */
  seed?: number;
  /** Connection set-up costs one RTT, like a TCP handshake. @default true */
  handshake?: boolean;
  /**
   * Bytes held in one direction's delay line before the proxy stops reading from that direction's
   * source socket; reading resumes below half of it. @default 4 MiB
   */
  highWaterBytes?: number;
  /** Parse RESP on the side and count commands. Off = a plain delaying byte pipe. @default true */
  tap?: boolean;
  /**
   * Unfinished requests one connection's tap may hold (docs/SECURITY.md says what each costs). Past it, or past
   * maxPendingTotal, that connection's tap stops timing (commands still counted, bytes untouched)
   * and /stats says so (`tap.degradedConnections`, `degraded` per connection). @default 65536
   */
  maxPendingPerConnection?: number;
  /** Unfinished requests all connections' taps may hold together. @default 262144 */
  maxPendingTotal?: number;
  /**
   * Close a connection when its client socket has seen no bytes either way for this long and no
   * request awaits a reply (a BLPOP waiting is not idle). 0 = never. @default 0
   */
  idleTimeoutMs?: number;
  /** Close new clients at once while this many connections are live. 0 = no limit. @default 0 */
  maxConnections?: number;
  /** Receives one event per finished command, push and connection open/close (for --record). */
  onEvent?: (event: TapEvent) => void;
  /** Collect every request argument's size (for --record). @default false */
  argSizes?: boolean;
  /** Hash function for the first key of each request (only for --record-keys hashed). */
  keyHash?: (key: Buffer) => string;
  /**
   * Microseconds taken off each one-way delay to pay for the proxy's own hop, so a client sees
   * direct + configured: a constant per direction, or `{ table }` from `redis-rtt calibrate`
   * (`compensationTable` in its JSON), which also pays for the peers' wake-ups at each delay.
   * @default the hop, measured at start (see docs/precision.md)
   */
  compensationUs?: Compensation;
  /** How long to wait for Redis to accept a connection before closing the client. @default 10000 */
  connectTimeoutMs?: number;
  /** Called after every link change (setLink or PUT /link) with the new settings. */
  onLinkChange?: (link: LinkSettings) => void;
  /** Where log lines go. @default stderr */
  log?: (line: string) => void;
  /**
   * Stages every connection runs, in this order per chain (docs/architecture.md): byte stages
   * after the link in their direction, frame stages on the framed path. @default none
   */
  stages?: readonly StageFactory[];
  /**
   * Speak TLS to Redis (docs/tls.md): `true` verifies against Node's bundled roots; files are read
   * and checked at start (a ConfigError naming the flag). @default false
   */
  upstreamTls?: boolean | UpstreamTlsOptions;
  /**
   * Serve TLS to clients, terminated behind the link so handshakes pay their round trips
   * (docs/tls.md). `true` generates a throwaway pair; its CA is `tlsCaFile`. @default false
   */
  listenTls?: boolean | ListenTlsOptions;
  /**
   * toxiproxy toxics and Redis-aware ones, as toxiproxy's API takes them
   * (`{ type, name?, stream?, toxicity?, attributes }`), after `stages`. When given (even `[]`)
   * every connection is framed, so Redis-aware toxics added later with addToxic() reach all of
   * them; without it they reach connections accepted after the first frame stage. @default none
   */
  toxics?: readonly unknown[];
  /** The scheduler delays and toxics run on (a ManualScheduler in tests; one shared by a server's proxies). @default a PreciseScheduler */
  scheduler?: Scheduler;
}

export interface RedisRttProxy extends StageHost {
  /** Adds a toxic (toxiproxy's JSON); ConfigError naming the field when invalid or the name is taken. */
  addToxic(toxic: unknown): ToxicSpec;
  /** Merges attributes (and toxicity) into a toxic; undefined when there is none of that name. */
  updateToxic(name: string, change: { attributes?: unknown; toxicity?: unknown }): ToxicSpec | undefined;
  /** False when there is no toxic of that name. */
  removeToxic(name: string): boolean;
  toxics(): ToxicSpec[];
  /** "127.0.0.1:40123" or the unix socket path. */
  readonly address: string;
  readonly host?: string;
  readonly port?: number;
  /** The CA certificate of a generated `listenTls` pair: what clients must trust. */
  readonly tlsCaFile?: string;
  /** Both sides' TLS handshakes and TLS bytes on the wire (plaintext bytes are in stats().totals). */
  tlsStats?(): TlsCounters;
  /** The control endpoint's "host:port", when started. */
  readonly controlAddress?: string;
  /** Microseconds taken off each one-way delay at the current link (hop, or the calibrated table). */
  readonly compensationUs: { up: number; down: number };
  /** Replaces the compensation for chunks that arrive from now on. */
  setCompensation(c: Compensation): void;
  /**
   * How late scheduled deliveries left against their due time (integer us), since start or the
   * last resetStats(): the delay line's own precision, before any wake-up latency of the peers.
   */
  deliveryLatenessUs(): LatencySummary;
  link(): LinkSettings;
  /** Changes the link for live and new connections; returns the new settings. */
  setLink(update: LinkUpdate & { preset?: string }): LinkSettings;
  stats(): StatsSnapshot;
  resetStats(): void;
  connections(): ConnectionInfo[];
  /** Stops listening, closes every connection and the control endpoint. */
  close(): Promise<void>;
}
