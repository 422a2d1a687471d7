import { formatEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import type { Compensation } from '../link/compensation.js';
import { LatencyHistogram } from '../numbers/histogram.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { ControlServer } from '../proxy/control.js';
import { startControl, type ControlPlan } from '../proxy/start-control.js';
import type { RedisRttProxy } from '../proxy/types.js';
import type { StageFactory } from '../stage/types.js';
import { renderPrometheus } from '../stats/prometheus.js';
import type { ConnectionInfo, LatencySummary, StatsSnapshot } from '../stats/types.js';
import { addTlsCounters, newTlsCounters, type TlsCounters } from '../tls/counters.js';
import type { ToxicSpec } from '../toxics/types.js';
import { mergeSnapshots } from './cluster-stats.js';
import { nodeView, type ClientZoneStats, type ClientZoneView, type ClusterNodeView, type ClusterStats, type RedisRttClusterProxy } from './cluster-view.js';
import type { ClientZone, ClientZones } from './client-zones.js';
import type { ClusterNode } from './node-set.js';
import type { NodeStarter } from './node-starter.js';
import type { RewriteCounts } from './rewrite-counts.js';
import type { TopologySource } from './topology-refresh.js';

/**
 * Cluster mode: one listener per node, each with its own delay lines and tap, and a rewrite stage
 * on every connection that writes the listeners' addresses into topology replies and redirects.
 * startClusterProxy (start-cluster.ts) builds it; its methods are the handle's.
 */
export class ClusterProxy implements RedisRttClusterProxy {
  readonly cluster = true;
  private control: ControlServer | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly zones: ClientZones,
    private readonly starter: NodeStarter,
    private readonly refresh: TopologySource,
    private readonly counts: RewriteCounts,
    private readonly listenTls: { caFile?: string; cleanup(): void },
  ) {}

  /** The control endpoint on this proxy's handlers: the last start-up step. */
  async startControl(plan: ControlPlan | undefined, log: (line: string) => void): Promise<void> {
    this.control = await startControl(
      plan,
      {
        stats: () => this.stats(),
        commandLatencyUs: () => this.commandLatencyUs(),
        metrics: () => renderPrometheus(this.stats()),
        reset: () => this.resetStats(),
        connections: () => this.connections(),
        // PUT /link?node=SELECTOR answers with every node's link, not only the first's.
        setLink: (u, node) => (this.setLink(u, node), { nodes: this.nodes() }),
      },
      log,
    );
  }

  /** The seed node's proxy: the first opened, never closed before the cluster proxy. */
  private get first(): RedisRttProxy {
    return this.zones.list()[0]!.proxy;
  }

  get address(): string {
    return formatEndpoint({ kind: 'tcp', host: this.first.host!, port: this.first.port! });
  }
  get host(): string | undefined {
    return this.first.host;
  }
  get port(): number | undefined {
    return this.first.port;
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
    const chosen = this.zones.setLink(update, selector);
    if (chosen.length === 0) throw new ConfigError('node', selector, 'a selector that picks at least one node (host:port, id prefix, masters, replicas)');
    return chosen[0]!.proxy.link();
  }

  stats(): ClusterStats {
    const per = this.zones.list().map((n) => ({ n, s: n.proxy.stats() }));
    const merged = mergeSnapshots(per.map((x) => x.s), this.first.link());
    const nodes = per.map(({ n, s }) => ({ ...nodeView(n, this.zones.split), counters: s.totals, connections: s.connections }));
    const clientZones = this.zones.split ? this.zones.zones.map((z) => clientZoneStats(z, per)) : undefined;
    return { ...merged, cluster: { nodes, ...(clientZones ? { clientZones } : {}), ...this.counts.snapshot() } };
  }
  /** Every node's histograms merged per command: copies, made on each call (the dashboard's tick). */
  commandLatencyUs(): Map<string, LatencyHistogram> {
    const merged = new Map<string, LatencyHistogram>();
    for (const n of this.zones.list()) {
      for (const [name, h] of n.proxy.commandLatencyUs()) {
        let into = merged.get(name);
        if (into === undefined) merged.set(name, (into = new LatencyHistogram()));
        into.add(h);
      }
    }
    return merged;
  }
  resetStats(): void {
    for (const n of this.zones.list()) n.proxy.resetStats();
    this.counts.reset();
  }
  connections(): ConnectionInfo[] {
    const split = this.zones.split;
    return this.zones.list().flatMap((n) => n.proxy.connections().map((c) => ({ ...c, node: `${n.host}:${n.port}`, ...(split ? { clientZone: n.clientZone } : {}) })));
  }
  nodes(): ClusterNodeView[] {
    return this.zones.list().map((n) => nodeView(n, this.zones.split));
  }
  clientZones(): ClientZoneView[] | undefined {
    if (!this.zones.split) return undefined;
    return this.zones.zones.map((z) => ({
      zone: z.zone,
      seed: listenOf(z.nodes.list()[0]!),
      nodes: z.nodes.list().map((n) => {
        const { id, upstream, listen, role, zone, link } = nodeView(n);
        return { id, upstream, listen, role, zone, link };
      }),
    }));
  }
  refreshTopology(): Promise<void> {
    return this.refresh.refresh();
  }

  /** A stage added here runs on every node's connections (a toxic on the whole cluster), later nodes' too. */
  addStage(stage: StageFactory, index?: number): void {
    for (const n of this.zones.list()) n.proxy.addStage(stage, index);
    this.starter.addStage(stage);
  }
  removeStage(name: string): boolean {
    this.starter.removeStage(name);
    return this.zones.list().map((n) => n.proxy.removeStage(name)).some(Boolean);
  }
  listStages(): readonly StageFactory[] {
    return this.first.listStages();
  }

  // Toxics go on every node known now (a node first seen later starts without them).
  addToxic(t: unknown): ToxicSpec {
    return this.zones.list().map((n) => n.proxy.addToxic(t))[0]!;
  }
  updateToxic(name: string, change: { attributes?: unknown; toxicity?: unknown }): ToxicSpec | undefined {
    return this.zones.list().map((n) => n.proxy.updateToxic(name, change))[0];
  }
  removeToxic(name: string): boolean {
    return this.zones.list().map((n) => n.proxy.removeToxic(name)).some(Boolean);
  }
  toxics(): ToxicSpec[] {
    return this.first.toxics();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      await this.refresh.stop();
      await Promise.all([this.zones.close(), this.control?.close()]);
      this.listenTls.cleanup();
    })());
  }
}

function listenOf(n: ClusterNode): string {
  return formatEndpoint({ kind: 'tcp', host: n.listen.host, port: n.listen.port });
}

/** One client zone's share: its listeners' snapshots merged. */
function clientZoneStats(z: ClientZone, per: readonly { n: ClusterNode; s: StatsSnapshot }[]): ClientZoneStats {
  const own = per.filter((x) => x.n.clientZone === z.zone);
  const { totals, commands, connections } = mergeSnapshots(own.map((x) => x.s), own[0]!.s.link);
  return { zone: z.zone, seed: listenOf(z.nodes.list()[0]!), totals, commands, connections };
}
