import type { ClientZones } from '../cluster/client-zones.js';
import type { NodeLabel } from '../cluster/cluster-node.js';
import { NoFreePortError } from '../cluster/listen-ports.js';
import { settledFailure } from '../cluster/settled-failure.js';
import { nodeKey } from '../cluster/topology.js';
import type { RealAddress, RewriteContext } from '../cluster/types.js';
import { formatEndpoint } from '../endpoint.js';
import type { SentinelReading } from './discover.js';
import type { GivenNames } from './given-names.js';
import type { SentinelRewriteContext } from './types.js';
import type { SentinelZones } from './zones.js';

const byAddress = (a: RealAddress, b: RealAddress): number => a.host.localeCompare(b.host) || a.port - b.port;

/**
 * The listeners of sentinel mode, one NodeSet per client zone (one without --client-zones):
 * sentinels and data nodes apart by address (a sentinel's connections get the rewrite stage, a data
 * node's none). Opens what a reading or a reply names, in every set, and labels each with its role
 * and zone. An address a given sentinel's name resolves to stands for that sentinel throughout.
 */
export class SentinelTopology {
  private readonly sentinelKeys = new Set<string>();

  constructor(
    private readonly nodes: () => ClientZones,
    private readonly zones: SentinelZones,
    private readonly names: GivenNames,
  ) {}

  /** What client zone `zone`'s rewrites look listeners up in: its own set only. */
  ctxFor(zone: number): SentinelRewriteContext {
    const set = () => this.nodes().zones[zone - 1]!.nodes;
    const side = (sentinels: boolean): RewriteContext => ({
      selfHost: '',
      listenerFor: (h, p) => {
        const a = this.names.canonical({ host: h, port: p });
        return this.isSentinel(a) === sentinels ? set().listenerFor(a.host, a.port) : undefined;
      },
    });
    return { nodes: side(false), sentinels: side(true) };
  }

  isSentinel(a: RealAddress): boolean {
    const c = this.names.canonical(a);
    return this.sentinelKeys.has(nodeKey(c.host, c.port));
  }

  sentinelAddresses(): RealAddress[] {
    return this.nodes().zones[0]!.nodes.list().filter((n) => this.isSentinel(n)).map((n) => ({ host: n.host, port: n.port }));
  }

  /** Opens listeners for sentinels (the first on `listenPort` when given) and labels them. */
  async openSentinels(named: readonly RealAddress[], listenPort?: number): Promise<void> {
    const list = this.canonical(named);
    for (const a of list) this.sentinelKeys.add(nodeKey(a.host, a.port));
    await this.nodes().open(list, listenPort);
    this.nodes().label(list.map((a) => this.labelOf(a, 'sentinel', this.zones.sentinel(a))));
  }

  /** Opens listeners for data nodes first named in a reply (their role comes with the next reading). */
  async openNodes(named: readonly RealAddress[]): Promise<void> {
    const list = this.canonical(named);
    await this.nodes().open(list);
    this.nodes().label(list.map((a) => this.labelOf(a, 'unknown', this.zones.replica(a))));
  }

  /**
   * Start-up: a listener for every given sentinel (the first on `listenPort` in client zone 1) and every
   * sentinel and data node the first reading names, in every client zone, all at once; labels come after
   * (openSentinels, apply). Opened a group at a time, a --listen-ports range too small failed on the first group
   * short of ports and counted that group only: 3 sentinels and 3 nodes in a range of 3 said 'the nodes need 4'.
   * Now the error names every listener left without a port and how many the whole set needs.
   */
  async openAtStart(given: readonly RealAddress[], r: SentinelReading, listenPort: number): Promise<void> {
    const sentinels = this.canonical([...given, ...r.sentinels]);
    for (const a of sentinels) this.sentinelKeys.add(nodeKey(a.host, a.port));
    const primaryKey = r.primary ? nodeKey(r.primary.host, r.primary.port) : undefined;
    // apply()'s order (the primary, then the replicas by address): the order nodes() and the first line list them.
    const replicas = r.replicas.filter((a) => nodeKey(a.host, a.port) !== primaryKey).sort(byAddress);
    const nodes = this.canonical([...(r.primary ? [r.primary] : []), ...replicas]).filter((a) => !this.isSentinel(a));
    const zones = this.nodes().zones;
    // The seed first, on its own: --listen may lie inside --listen-ports, and a listener taking from the range at
    // the same time could take its port.
    if (sentinels[0]) await zones[0]!.nodes.open([sentinels[0]], listenPort);
    const tries = zones.flatMap((z) =>
      [...sentinels, ...nodes].map((a) => {
        const named = `${this.isSentinel(a) ? 'sentinel' : 'node'} ${formatEndpoint({ kind: 'tcp', ...a })}${zones.length > 1 ? ` (client zone ${z.zone})` : ''}`;
        return { named, opened: z.nodes.open([a]) };
      }),
    );
    const settled = await Promise.allSettled(tries.map((t) => t.opened));
    // Each listener short of a port under its own name (NodeSet says 'node' for a sentinel, and the same name in every zone).
    const failed = settledFailure(
      settled.map((x, i): PromiseSettledResult<unknown> => {
        if (x.status === 'fulfilled' || !(x.reason instanceof NoFreePortError)) return x;
        return { status: 'rejected', reason: new NoFreePortError(x.reason.range, [tries[i]!.named], x.reason.held) };
      }),
    );
    if (failed) throw failed;
    // Labelled here, given ones first (their zones in that order): apply() labels only the sentinels it has not seen.
    this.nodes().label(sentinels.map((a) => this.labelOf(a, 'sentinel', this.zones.sentinel(a))));
  }

  /** A reading of the sentinel that speaks for the topology: listeners for all it names, roles from it. */
  async apply(r: SentinelReading): Promise<void> {
    const primaryKey = r.primary ? nodeKey(r.primary.host, r.primary.port) : undefined;
    // The sentinel leading a failover names the promoted replica primary seconds before its REPLICAS
    // stops listing it (until the other replicas have resynced): the primary's label is the one kept.
    const replicas = r.replicas.filter((a) => nodeKey(a.host, a.port) !== primaryKey).sort(byAddress);
    // Those with listeners take the reading even when one could not get a listener (no port left in --listen-ports),
    // as in cluster mode: one replica added to a full range froze every role, the masters selector and /stats primary.
    // Each on its own: one rejected must not leave the others unlabelled while they still open.
    const learned = this.canonical(r.sentinels).filter((s) => !this.isSentinel(s));
    for (const a of learned) this.sentinelKeys.add(nodeKey(a.host, a.port));
    const opened = await Promise.allSettled([...learned, ...(r.primary ? [r.primary] : []), ...replicas].map((a) => this.nodes().open([a])));
    const labels = learned.map((a) => this.labelOf(a, 'sentinel', this.zones.sentinel(a)));
    labels.push(...replicas.map((a) => this.labelOf(a, 'replica', this.zones.replica(a))));
    if (r.primary) labels.unshift(this.labelOf(r.primary, 'master', this.zones.primary(r.primary)));
    // The primary before, in that gap listed nowhere: no longer master (/stats primary, the masters
    // selector), and unknown until a reading lists it as a replica.
    const named = new Set(labels.map((l) => l.id));
    for (const n of this.nodes().zones[0]!.nodes.list()) {
      if (n.role === 'master' && !named.has(nodeKey(n.host, n.port))) labels.push(this.labelOf(n, 'unknown', undefined));
    }
    this.nodes().label(labels);
    const failed = settledFailure(opened);
    if (failed) throw failed;
  }

  /** The addresses with each given sentinel's in place of its resolved ones, each once. */
  private canonical(list: readonly RealAddress[]): RealAddress[] {
    const out = new Map<string, RealAddress>();
    for (const a of list) {
      const c = this.names.canonical(a);
      out.set(nodeKey(c.host, c.port), c);
    }
    return [...out.values()];
  }

  private labelOf(a: RealAddress, role: NodeLabel['role'], zone: number | undefined): NodeLabel {
    return { host: a.host, port: a.port, id: nodeKey(a.host, a.port), role, zone };
  }
}
