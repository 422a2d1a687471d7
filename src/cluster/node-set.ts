import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { CloseOptions, RedisRttProxy } from '../proxy/types.js';
import type { StatsSnapshot } from '../stats/types.js';
import { listenerName, type ClusterNode, type NodeLabel, type NodeSetOptions } from './cluster-node.js';
import { mergeSnapshots } from './cluster-stats.js';
import type { ListenPortRange } from './listen-ports.js';
import { addPutLinkRule, EVERY_NODE, linkForNode, putLinkRule, selects, type SelectableNode } from './node-link.js';
import { settledFailure } from './settled-failure.js';
import { nodeKey, type TopologyNode } from './topology.js';
import type { ListenAddress, RealAddress } from './types.js';
import { placeZones } from './zones.js';

/** A node left out of every reading for this long has left the cluster (NodeSetOptions.goneAfterMs). */
const GONE_AFTER_MS = 5000;

/**
 * The nodes the proxy knows, keyed by their real address, each with its listener. A node first
 * named in a reply gets its listener on the spot (open()); re-reading the topology updates roles,
 * places new nodes in zones, re-applies role-selected links after a failover, and closes the
 * listener of a node the cluster no longer has (all but the seed's, the first opened).
 */
export class NodeSet {
  private readonly byKey = new Map<string, ClusterNode>();
  /** "hostname:port" to a node's key: Redis names a node by its announced hostname in redirects. */
  private readonly byHostname = new Map<string, string>();
  private readonly opening = new Map<string, Promise<ClusterNode>>();
  /**
   * When each node was asked for: list() (nodes(), the listening line) keeps that order, not the
   * order their starts finished in, which each start's dial to its Redis makes vary.
   */
  private readonly askedAt = new Map<string, number>();
  private asked = 0;
  private readonly zoneOf = new Map<string, number>();
  private readonly applied = new Map<ClusterNode, string>();
  private readonly range: ListenPortRange | undefined;
  /** When each node a reading left out was first left out (performance.now() ms). */
  private readonly missingSince = new Map<string, number>();
  /** What the nodes that left counted, merged: the totals keep it. */
  private gone: StatsSnapshot | undefined;

  constructor(private readonly o: NodeSetOptions) {
    this.range = o.listenPorts;
  }

  list(): ClusterNode[] {
    const at = (n: ClusterNode): number => this.askedAt.get(n.upstream) ?? Number.MAX_SAFE_INTEGER;
    return [...this.byKey.values()].sort((a, b) => at(a) - at(b));
  }

  listenerFor(host: string, port: number): ListenAddress | undefined {
    return this.known(nodeKey(host, port))?.listen;
  }

  /** A node by its real address, or by the hostname it announces. */
  private known(key: string): ClusterNode | undefined {
    return this.byKey.get(key) ?? this.byKey.get(this.byHostname.get(key) ?? '');
  }

  /**
   * Opens a listener for each address not known yet; resolves once all accept clients. Every open is
   * waited for, and the failures are one error: nodes with no port left in --listen-ports are all
   * named and counted ("the nodes need N"); the first failure alone counted one.
   */
  async open(addresses: readonly RealAddress[], listenPort?: number): Promise<ClusterNode[]> {
    const opened = await Promise.allSettled(addresses.map((a) => this.openOne(a, listenPort)));
    const failed = settledFailure(opened);
    if (failed) throw failed;
    return opened.map((r) => (r as PromiseFulfilledResult<ClusterNode>).value);
  }

  private openOne(a: RealAddress, listenPort: number | undefined): Promise<ClusterNode> {
    const key = nodeKey(a.host, a.port);
    const known = this.known(key);
    if (known) return Promise.resolve(known);
    let p = this.opening.get(key);
    if (!p) {
      if (!this.askedAt.has(key)) this.askedAt.set(key, this.asked++);
      p = this.start(a, listenPort).finally(() => this.opening.delete(key));
      this.opening.set(key, p);
    }
    return p;
  }

  private async start(a: RealAddress, listenPort: number | undefined): Promise<ClusterNode> {
    const pending: SelectableNode = { id: '', upstream: nodeKey(a.host, a.port), role: 'unknown' };
    const want = this.desired(pending, undefined);
    const stage = this.o.stageFor(a);
    const zone = this.namedZone();
    let proxy: RedisRttProxy;
    if (listenPort !== undefined || !this.range) {
      proxy = await this.o.startNodeProxy(a, listenPort ?? 0, want.settings, stage, zone);
    } else {
      proxy = await this.range.take((port) => this.o.startNodeProxy(a, port, want.settings, stage, zone), listenerName(a, zone));
    }
    const node: ClusterNode = {
      ...pending,
      host: a.host,
      port: a.port,
      zone: undefined,
      clientZone: this.o.clientZone ?? 1,
      listen: { host: this.o.announceHost, port: proxy.port! },
      proxy,
      linkName: want.name,
    };
    this.byKey.set(pending.upstream, node);
    this.applied.set(node, JSON.stringify(want.settings));
    return node;
  }

  /**
   * Takes a fresh CLUSTER NODES reading: new usable nodes get listeners, known ones their id and
   * role, new ones a zone; then every node's link is re-derived (a failover moves role links).
   */
  async setTopology(nodes: readonly TopologyNode[]): Promise<void> {
    for (const n of nodes) {
      if (n.hostname === undefined) continue;
      this.byHostname.set(nodeKey(n.hostname, n.port), nodeKey(n.host, n.port));
      this.adopt(nodeKey(n.hostname, n.port), n.host);
    }
    const opened = await Promise.allSettled(nodes.filter((n) => !n.unusable).map((n) => this.openOne({ host: n.host, port: n.port }, undefined)));
    // The nodes that have listeners take the reading even when one could not get a listener (no
    // port left in --listen-ports): else one added node would freeze every role and role link.
    const placed = this.o.zoneCount === undefined ? undefined : placeZones(nodes, this.o.zoneCount);
    this.label(nodes.map((t) => ({ host: t.host, port: t.port, id: t.id, role: t.role, zone: placed?.get(t.id) })));
    await this.dropGone(nodes);
    const failed = settledFailure(opened);
    if (failed) throw failed;
  }

  /**
   * A redirect can name a node by its hostname before any reading has (a node just added to a
   * cluster that prefers hostnames): its listener opened under that name. The reading that gives
   * the node's address files that listener under it. It opened a second listener instead, and
   * closed the first 5 s later as "left the cluster", cutting the clients that followed the redirect.
   */
  private adopt(named: string, host: string): void {
    const node = this.byKey.get(named);
    if (!node) return;
    const real = nodeKey(host, node.port);
    if (real === named || this.byKey.has(real)) return;
    const filed: ClusterNode = { ...node, host, upstream: real };
    this.byKey.delete(named);
    this.byKey.set(real, filed);
    this.askedAt.set(real, this.askedAt.get(named) ?? this.asked++);
    this.askedAt.delete(named);
    this.missingSince.delete(named);
    const applied = this.applied.get(node);
    this.applied.delete(node);
    if (applied !== undefined) this.applied.set(filed, applied);
  }

  /**
   * Closes the listeners of the nodes readings have not named for goneAfterMs (del-node, CLUSTER
   * FORGET on every node; a node marked failed is still named): their clients' connections close
   * with them, their ports go back to --listen-ports, and what they counted stays in the totals.
   * The seed's listener (the first opened, on --listen for zone 1) stays: it is the address
   * clients were given.
   */
  private async dropGone(nodes: readonly TopologyNode[]): Promise<void> {
    const named = new Set(nodes.map((n) => nodeKey(n.host, n.port)));
    // A node restarted on another port keeps its id: its new address has a listener of its own.
    // A node with no address (port 0, flagged noaddr) has moved nowhere: it has left.
    const movedTo = new Map(nodes.filter((n) => n.port !== 0).map((n) => [n.id, nodeKey(n.host, n.port)]));
    const now = performance.now();
    const graceMs = this.o.goneAfterMs ?? GONE_AFTER_MS;
    for (const key of this.missingSince.keys()) if (named.has(key)) this.missingSince.delete(key);
    const gone: { key: string; node: ClusterNode }[] = [];
    for (const [key, node] of [...this.byKey].slice(1)) {
      if (named.has(key)) continue;
      const since = this.missingSince.get(key) ?? now;
      this.missingSince.set(key, since);
      if (now - since >= graceMs) gone.push({ key, node });
    }
    for (const { key, node } of gone) {
      this.byKey.delete(key);
      this.askedAt.delete(key);
      this.missingSince.delete(key);
      this.applied.delete(node);
      for (const [name, of] of this.byHostname) if (of === key) this.byHostname.delete(name);
    }
    await Promise.all(
      gone.map(async ({ node }) => {
        await node.proxy.close();
        this.range?.release(node.listen.port);
        const last = node.proxy.stats();
        const merged = mergeSnapshots(this.gone ? [this.gone, last] : [last], last.link);
        this.gone = { ...merged, connections: { ...merged.connections, active: 0 } };
        const newAddress = movedTo.get(node.id);
        const what = newAddress === undefined ? 'left the cluster' : `moved to ${newAddress}`;
        this.o.log(`${listenerName(node, this.namedZone())} ${what}: its listener ${node.listen.host}:${node.listen.port} is closed`);
      }),
    );
  }

  /** This set's client zone where log lines and errors name it (--client-zones), else undefined. */
  private namedZone(): number | undefined {
    return this.o.nameClientZone ? (this.o.clientZone ?? 1) : undefined;
  }

  /** What the nodes that left the cluster counted, merged into one snapshot; none while no node has left. */
  goneStats(): StatsSnapshot[] {
    return this.gone ? [this.gone] : [];
  }

  /** Forgets what the nodes that left counted (resetStats). */
  resetGone(): void {
    this.gone = undefined;
  }

  /**
   * Gives known nodes their id, role and (once) zone, then re-derives every node's link. Zones are
   * kept by id: a failover changes roles, not zones.
   */
  label(labels: readonly NodeLabel[]): void {
    for (const t of labels) {
      const node = this.byKey.get(nodeKey(t.host, t.port));
      if (!node) continue;
      if (t.zone !== undefined && !this.zoneOf.has(t.id)) this.zoneOf.set(t.id, t.zone);
      node.id = t.id;
      node.role = t.role;
      node.zone = this.zoneOf.get(t.id);
    }
    this.applyLinks();
  }

  /** Sets each node's link to what its rules, zone or the base say, where that changed. */
  applyLinks(): void {
    for (const node of this.byKey.values()) {
      const want = this.desired(node, node.zone);
      const text = JSON.stringify(want.settings);
      if (this.applied.get(node) === text) continue;
      node.proxy.setLink(want.settings);
      node.linkName = want.name;
      this.applied.set(node, text);
    }
  }

  /**
   * PUT /link?node=SELECTOR: a partial update on the selected nodes now, remembered as a rule so a
   * node that takes a selected role later (after a failover) gets it too.
   */
  setLink(update: LinkUpdate & { preset?: string }, selector: string | undefined): ClusterNode[] {
    const chosen = this.list().filter((n) => selector === undefined || selects(selector, n));
    // A partition alone changes no setting: the nodes keep their link's name, and no rule is kept
    // (a node that takes the role later is not cut: a partition happens once, now).
    const settings = Object.keys(update).some((k) => k !== 'partition' && k !== 'then');
    for (const node of chosen) {
      const next = node.proxy.setLink(update);
      if (!settings) continue;
      node.linkName = 'PUT /link';
      this.applied.set(node, JSON.stringify(next));
      if (node === chosen[0]) addPutLinkRule(this.o.rules, putLinkRule(selector ?? EVERY_NODE, update, next));
    }
    return chosen;
  }

  private desired(node: SelectableNode, zone: number | undefined): { name: string; settings: LinkSettings } {
    const pick = linkForNode(node, zone, { base: this.o.base, baseName: 'link', zones: this.o.zoneLinks, rules: this.o.rules, clientZone: this.o.clientZone });
    const settings = pick.overlays.reduce((s, overlay) => applyLinkUpdate(s, overlay), applyLinkUpdate(defaultLinkSettings(), pick.update));
    return { name: pick.name, settings };
  }

  async close(options?: CloseOptions): Promise<void> {
    await Promise.allSettled(this.opening.values());
    await Promise.all(this.list().map((n) => n.proxy.close(options)));
  }
}
