import type tls from 'node:tls';
import { discoverCluster } from './discover.js';
import type { TopologyNode } from './topology.js';
import type { RealAddress } from './types.js';

/** What a refresh reads from (the nodes to ask) and feeds (ClientZones, a NodeSet). */
export interface TopologyTarget {
  list(): readonly RealAddress[];
  setTopology(nodes: readonly TopologyNode[]): Promise<void>;
}

export interface TopologyRefreshOptions {
  /** The node given as --upstream: asked first, even once it is no longer among the nodes. */
  seed: RealAddress;
  nodes: TopologyTarget;
  auth: { user?: string; password?: string };
  /** TLS options per node host (--upstream-tls); undefined without TLS. */
  tls: ((host: string) => tls.ConnectionOptions) | undefined;
  periodMs: number;
  log(line: string): void;
}

/** What keeps a proxy's node list current (cluster mode's CLUSTER NODES reads, sentinel mode's SENTINEL ones). */
export interface TopologySource {
  /** Reads now; one read at a time. */
  refresh(): Promise<void>;
  /** Stops reading and waits for a read in flight. */
  stop(): Promise<void>;
}

/**
 * Re-reads CLUSTER NODES from the first node that answers, every `periodMs` and when a rewrite
 * opened a listener. One read at a time: a refresh asked for while one runs joins it.
 */
export class TopologyRefresh implements TopologySource {
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: TopologyRefreshOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.refresh(), this.o.periodMs);
    this.timer.unref();
  }

  refresh(): Promise<void> {
    return (this.running ??= this.read()
      .catch((err: unknown) => this.o.log(`topology refresh failed: ${(err as Error).message}`))
      .finally(() => (this.running = undefined)));
  }

  /** Stops the timer and waits for a read in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async read(): Promise<void> {
    for (const c of [this.o.seed, ...this.o.nodes.list()]) {
      try {
        const d = await discoverCluster(c.host, c.port, { ...this.o.auth, tls: this.o.tls?.(c.host), timeoutMs: 1000 });
        if (d.enabled && d.nodes.length > 0) return this.o.nodes.setTopology(d.nodes);
      } catch {
        // that node is down: ask the next
      }
    }
    throw new Error('no node answered CLUSTER NODES');
  }
}
