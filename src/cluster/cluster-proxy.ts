import { formatEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import type { Compensation } from '../link/compensation.js';
import { jitterFloorWarning } from '../link/jitter.js';
import type { LatencyHistogram } from '../numbers/histogram.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { CloseOptions } from '../proxy/types.js';
import type { ControlServer } from '../proxy/control.js';
import { readSideHandlers, startControl, type ControlPlan } from '../proxy/start-control.js';
import type { ConnectionInfo, LatencySummary } from '../stats/types.js';
import { addTlsCounters, newTlsCounters, type TlsCounters } from '../tls/counters.js';
import { clientZoneViews, clusterConnections, clusterStats, mergedCommandLatency } from './cluster-proxy-stats.js';
import { nodeView, type ClientZoneView, type ClusterNodeView, type ClusterStats, type RedisRttClusterProxy } from './cluster-view.js';
import type { ClientZones } from './client-zones.js';
import type { ClusterNode } from './cluster-node.js';
import { NodeFanOut } from './node-fan-out.js';
import { selects } from './node-link.js';
import type { NodeStarter } from './node-starter.js';
import type { RewriteCounts } from './rewrite-counts.js';
import type { TopologySource } from './topology-refresh.js';

/**
 * Cluster mode: one listener per node, each with its own delay lines and tap, and a rewrite stage
 * on every connection that writes the listeners' addresses into topology replies and redirects.
 * startClusterProxy (start-cluster.ts) builds it; its methods are the handle's.
 */
export class ClusterProxy extends NodeFanOut implements RedisRttClusterProxy {
  readonly cluster = true;
  private control: ControlServer | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    zones: ClientZones,
    starter: NodeStarter,
    private readonly refresh: TopologySource,
    private readonly counts: RewriteCounts,
    private readonly listenTls: { caFile?: string; cleanup(): void },
  ) {
    super(zones, starter);
  }

  /** The control endpoint on this proxy's handlers: the last start-up step. */
  async startControl(plan: ControlPlan | undefined, log: (line: string) => void): Promise<void> {
    this.control = await startControl(
      plan,
      {
        ...readSideHandlers(this),
        toxics: this.toxicControl(),
        // PUT /link?node=SELECTOR answers with every node's link, not only the first's; the
        // warnings are the chosen nodes' (a listener per client zone: one per node).
        setLink: (u, node) => {
          const chosen = this.setLinkOf(u, node);
          const warnings = chosen.flatMap((n) => {
            const warning = jitterFloorWarning(n.proxy.link());
            return warning ? [`node ${n.host}:${n.port}: ${warning}`] : [];
          });
          return { link: { nodes: this.nodes() }, warnings: [...new Set(warnings)] };
        },
        linkOf: (node) => ({ nodes: this.chosen(node).map((n) => nodeView(n, this.zones.split)) }),
        // Each chosen node's own snapshot (its commands too, which cluster.nodes has not), under its view.
        statsOf: (node) => ({ nodes: this.chosen(node).map((n) => ({ ...nodeView(n, this.zones.split), stats: n.proxy.stats() })) }),
      },
      log,
    );
  }

  get address(): string {
    return formatEndpoint({ kind: 'tcp', host: this.first.host!, port: this.first.port! });
  }
  // Cluster and Sentinel modes listen on TCP only (the seed's listener is bound before the proxy
  // is handed out), so host and port are always there: typed so, a client's `{ host, port }`
  // type-checks under exactOptionalPropertyTypes.
  get host(): string {
    return this.first.host!;
  }
  get port(): number {
    return this.first.port!;
  }
  get controlAddress(): string | undefined {
    return this.control?.address;
  }
  get tlsCaFile(): string | undefined {
    return this.listenTls.caFile;
  }
  get compensationUs(): { up: number; down: number } {
    return this.first.compensationUs;
  }

  tlsStats(): TlsCounters {
    return this.zones.list().reduce((sum, n) => addTlsCounters(sum, n.proxy.tlsStats?.() ?? newTlsCounters()), newTlsCounters());
  }
  setCompensation(c: Compensation): void {
    for (const n of this.zones.list()) n.proxy.setCompensation(c);
  }
  deliveryLatenessUs(): LatencySummary {
    return this.first.deliveryLatenessUs();
  }
  link(): LinkSettings {
    return this.first.link();
  }
  setLink(update: LinkUpdate & { preset?: string }, selector?: string): LinkSettings {
    return this.setLinkOf(update, selector)[0]!.proxy.link();
  }

  /** The nodes the selector chose, their link changed; at least one. */
  private setLinkOf(update: LinkUpdate & { preset?: string }, selector: string | undefined): ClusterNode[] {
    // Checked first: nothing changes on a selector that picks no node.
    if (selector !== undefined) this.chosen(selector);
    return this.zones.setLink(update, selector);
  }

  /**
   * The listeners `selector` picks (every client zone's), at least one. An empty one is refused: as
   * an id prefix it would pick every node (`?node=$NODE` with NODE unset changed them all).
   */
  private chosen(selector: string): ClusterNode[] {
    const chosen = selector.trim() === '' ? [] : this.zones.list().filter((n) => selects(selector, n));
    if (chosen.length === 0) throw new ConfigError('node', selector, 'a selector that picks at least one node (host:port, id prefix, masters, replicas, or sentinels in sentinel mode)');
    return chosen;
  }

  stats(): ClusterStats {
    return clusterStats(this.zones, this.counts, this.first.link(), this.starter.openFailures.nodes());
  }
  /** Every node's histograms merged per command: copies, made on each call (the dashboard's tick). */
  commandLatencyUs(): Map<string, LatencyHistogram> {
    return mergedCommandLatency(this.zones.list());
  }
  resetStats(): void {
    for (const n of this.zones.list()) n.proxy.resetStats();
    for (const z of this.zones.zones) z.nodes.resetGone();
    this.counts.reset();
  }
  connections(): ConnectionInfo[] {
    return clusterConnections(this.zones);
  }
  nodes(): ClusterNodeView[] {
    return this.zones.list().map((n) => nodeView(n, this.zones.split));
  }
  clientZones(): ClientZoneView[] | undefined {
    return clientZoneViews(this.zones);
  }
  refreshTopology(): Promise<void> {
    return this.refresh.refresh();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  close(options?: CloseOptions): Promise<void> {
    return (this.closing ??= (async () => {
      await this.refresh.stop();
      await Promise.all([this.zones.close(options), this.control?.close()]);
      this.listenTls.cleanup();
    })());
  }
}
