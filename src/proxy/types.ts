import type { z } from 'zod';
import type { Compensation } from '../link/compensation.js';
import type { LatencyHistogram } from '../numbers/histogram.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { Scheduler, StageFactory, StageHost } from '../stage/types.js';
import type { ToxicSpec } from '../toxics/types.js';
import type { ConnectionInfo, LatencySummary, StatsSnapshot, TapEvent } from '../stats/types.js';
import type { TlsCounters } from '../tls/counters.js';
import type { ClusterProxyOptions } from './cluster-options.js';
import type { PROXY_OPTIONS } from './options-schema.js';
import type { SelfMonitor } from './self-monitor.js';

/**
 * startProxy's options: the data ones from their schema (PROXY_OPTIONS in options-schema.ts, which
 * says what each means and its default; cluster mode's are in cluster-options.ts) plus the hooks.
 */
export type ProxyOptions = Omit<z.input<typeof PROXY_OPTIONS>, 'toxics'> &
  ProxyHooks & {
    /**
     * toxiproxy toxics and Redis-aware ones, as toxiproxy's API takes them
     * (`{ type, name?, stream?, toxicity?, attributes }`): checked by the TOXIC schema.
     */
    toxics?: readonly unknown[];
  };

/** How close() ends the connections. */
export interface CloseOptions {
  /** Let each connection deliver what it holds first (listener.ts, drain()). @default true */
  drain?: boolean;
}

/** The options of startProxy that are code, not data (so not in the JSON Schema). */
export interface ProxyHooks extends Pick<ClusterProxyOptions, 'onNodeLinkChange'> {
  /** Receives one event per finished command, push and connection open/close (for --record). */
  onEvent?: (event: TapEvent) => void;
  /** Hash function for the first key of each request (only for --record-keys hashed). */
  keyHash?: (key: Buffer) => string;
  /** Called after every link change (setLink or PUT /link) with the new settings. */
  onLinkChange?: (link: LinkSettings) => void;
  /** Where log lines go. @default stderr */
  log?: (line: string) => void;
  /**
   * Stages every connection runs, in this order per chain (docs/architecture.md): byte stages
   * after the link in their direction, frame stages on the framed path. @default none
   */
  stages?: readonly StageFactory[];
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
  // `T | undefined`, not `?:`: the classes' getters return undefined, which a declaration compiled
  // with exactOptionalPropertyTypes (a consumer's, without skipLibCheck) refuses for an optional key.
  /** The listen host; undefined on a unix socket. */
  readonly host: string | undefined;
  readonly port: number | undefined;
  /** The CA certificate of a generated `listenTls` pair: what clients must trust. */
  readonly tlsCaFile: string | undefined;
  /** Both sides' TLS handshakes and TLS bytes on the wire (plaintext bytes are in stats().totals). */
  tlsStats?(): TlsCounters;
  /** The control endpoint's "host:port", when started. */
  readonly controlAddress: string | undefined;
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
  /**
   * Each command's clientUs histogram, live (read them, never change them): what the dashboard's
   * window subtracts readings of. Empty without the tap.
   */
  commandLatencyUs(): Iterable<readonly [string, LatencyHistogram]>;
  resetStats(): void;
  connections(): ConnectionInfo[];
  /**
   * Stops listening, then closes every connection and the control endpoint. By default a
   * connection first delivers what the link and stages hold, when due (up to the link's round trip
   * plus 100 ms, at most 2 s; listener.ts, drain()); `{ drain: false }` closes them at once, as
   * toxiproxy does. What a close drops is not counted as delivered.
   */
  close(options?: CloseOptions): Promise<void>;
  /** close(), for `await using proxy = await startProxy(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What a cluster proxy tells each node proxy it starts: the start-up warnings already logged, the shared monitor. */
export interface NodeStart {
  /**
   * A node started after the first: the warnings every node's options would repeat (--upstream-insecure,
   * a listener reachable from other machines) were said by the first.
   */
  warnedBefore?: boolean;
  /**
   * The nodes' proxies share one event loop, so one monitor sees its turns whole (a node's own would
   * miss the other nodes' reads of a turn), and each node's `self` is the process's.
   */
  monitor?: SelfMonitor;
}
