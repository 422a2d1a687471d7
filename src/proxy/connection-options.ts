/** What a ProxiedConnection is given by the server that accepted it. */
import type tls from 'node:tls';
import type { LinkState } from '../link/link-state.js';
import type { ConnectionTap } from '../tap/types.js';
import type { UpstreamTlsMeter } from '../tls/counters.js';
import type { TlsStagePair } from '../tls/tls-stage-pair.js';
import type { ProxiedConnection } from './connection.js';
import type { Endpoint } from '../endpoint.js';
import type { ProxyStages } from './proxy-stages.js';
import type { Direction, Scheduler } from '../stage/types.js';

export interface ConnectionOptions {
  id: number;
  upstream: Endpoint;
  link: LinkState;
  scheduler: Scheduler;
  tap: ConnectionTap | undefined;
  highWaterBytes: number;
  handshake: boolean;
  connectTimeoutMs: number;
  log: (line: string) => void;
  /** Lateness of each scheduled delivery (ns), for the proxy's precision histogram. */
  onLateness?: (lateNs: number, direction: Direction) => void;
  /**
   * Each read from either socket, when it ran, before it is handed on (the proxy's self-report),
   * with when the connection last wrote the other way (what the bytes likely answer; -1: never).
   */
  onRead?: (nowNs: number, answersNs: number) => void;
  /** The current read's estimated wait for the read, ns (the self-report's addedUs). */
  readWaitNs?: () => number;
  /** Per delivered chunk: time beyond the configured delay, ns (the self-report's addedUs). */
  onAdded?: (addedNs: number) => void;
  /** Per reply chunk delivered: its time beyond the configured delay and that of the last request chunk, ns. */
  onReplyAdded?: (addedNs: number, requestAddedNs: number) => void;
  onClosed: (conn: ProxiedConnection) => void;
  /** Redis refused this connection's dial (it is down): the listener may stop listening (refusal-watch.ts). */
  onRefused?: () => void;
  /** The proxy's stages; none beyond the link when absent. */
  stages?: ProxyStages;
  /** Speak TLS to Redis with these options (checked at start). */
  upstreamTls?: tls.ConnectionOptions;
  /** Counts the upstream TLS wire bytes (with upstreamTls). */
  upstreamMeter?: UpstreamTlsMeter;
  /**
   * The client speaks TLS: this pair of stages (src/tls/tls-stage-pair.ts) goes into both chains,
   * on the client's side of everything but the link, and the tap's stamps come from the raw socket.
   */
  clientTls?: TlsStagePair;
}
