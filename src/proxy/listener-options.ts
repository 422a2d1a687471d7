import type tls from 'node:tls';
import type { Endpoint } from '../endpoint.js';
import type { LinkState } from '../link/link-state.js';
import type { LinkSettings } from '../link/types.js';
import type { LatencyHistogram } from '../numbers/histogram.js';
import type { Direction, Scheduler } from '../stage/types.js';
import type { ConnectionInfo, StatsSnapshot, TapEvent } from '../stats/types.js';
import type { ConnectionTap } from '../tap/types.js';
import type { SelfMonitor } from './self-monitor.js';

/** What the proxy needs from the stats side: one tap per connection and a snapshot. */
export interface TapSource {
  openConnection(options: {
    id?: number;
    client: string | (() => string);
    onEvent?: (e: TapEvent) => void;
    argSizes?: boolean;
    keyHash?: (key: Buffer) => string;
  }): ConnectionTap;
  snapshot(link: LinkSettings): StatsSnapshot;
  connectionsInfo(): ConnectionInfo[];
  reset(): void;
  /** Per-command histograms (StatsCollector's table), read by the dashboard. */
  readonly commands: { clientLatency(): Iterable<readonly [string, LatencyHistogram]> };
}

export interface ProxyListenerOptions {
  upstream: Endpoint;
  listen: Endpoint;
  link: LinkState;
  taps: TapSource | undefined;
  scheduler?: Scheduler;
  highWaterBytes: number;
  handshake: boolean;
  connectTimeoutMs: number;
  onEvent?: (e: TapEvent) => void;
  argSizes: boolean;
  keyHash?: (key: Buffer) => string;
  log: (line: string) => void;
  onLateness?: (lateNs: number, direction: Direction) => void;
  /** The proxy's self-report: told of opens, closes and reads. */
  monitor?: SelfMonitor;
  /** Close a connection whose client socket saw no bytes either way for this long, unless a request awaits its reply. 0 = never. */
  idleTimeoutMs?: number;
  /** Refuse (close at once) clients beyond this many live connections. 0 = no limit. */
  maxConnections?: number;
  /** Speak TLS to Redis with these options. */
  upstreamTls?: tls.ConnectionOptions;
  /** Serve client TLS with these server options, as a stage pair behind the link (src/tls/tls-stage-pair.ts). */
  listenTls?: tls.TLSSocketOptions;
}
