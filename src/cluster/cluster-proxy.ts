import { ConfigError } from '../errors.js';
import { parseLinkSpec } from '../link/link-spec.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import { formatEndpoint, parseEndpoint, parseRedisEndpoint } from '../proxy/endpoint.js';
import { planControl, startControl } from '../proxy/start-control.js';
import { renderMetrics } from '../proxy/registry-factory.js';
import type { ProxyOptions, RedisRttProxy } from '../proxy/types.js';
import type { Counters, ConnectionInfo, StatsSnapshot } from '../stats/types.js';
import type { StageFactory } from '../stage/types.js';
import { mergeSnapshots } from './cluster-stats.js';
import { certificateError, clusterListenTls, discoveryTls } from './cluster-tls.js';
import { discoverCluster, type Discovery } from './discover.js';
import { addTlsCounters, newTlsCounters } from '../tls/counters.js';
import { parseNodeLink, selects } from './node-link.js';
import { NodeSet, type ClusterNode } from './node-set.js';
import { checkZones, DEFAULT_CLUSTER, parsePortRange, type ClusterProxyOptions } from './options.js';
import { rewriteStage } from './rewrite-stage.js';
import { ClusterEventIds } from './event-ids.js';
import { REWRITE_KINDS, type RewriteKind } from './types.js';

/** A node as the start-up line, /stats and nodes() show it. */
export interface ClusterNodeView {
  id: string;
  /** The node's real "host:port". */
  upstream: string;
  /** Its listener, as rewritten replies name it. */
  listen: string;
  role: 'master' | 'replica' | 'unknown';
  /** 1-based zone with --zones; null without. */
  zone: number | null;
  /** The link's name: a preset, a spec, "link" (the --rtt/--preset flags) or "PUT /link". */
  link: string;
  linkSettings: LinkSettings;
}

export interface ClusterStats extends StatsSnapshot {
  cluster: {
    nodes: (ClusterNodeView & { counters: Counters; connections: { active: number; total: number } })[];
    /** Replies rewritten, by kind. */
    rewrites: Record<RewriteKind, number>;
    /** Topology replies that could not be parsed and went out unchanged. */
    unparsedTopology: number;
  };
}

export interface RedisRttClusterProxy extends RedisRttProxy {
  readonly cluster: true;
  nodes(): ClusterNodeView[];
  /** Changes the link of the nodes `selector` picks (every node without one); returns the first one's settings. */
  setLink(update: LinkUpdate & { preset?: string }, selector?: string): LinkSettings;
  stats(): ClusterStats;
  /** Re-reads CLUSTER NODES now (the proxy also does it every topologyRefreshMs). */
  refreshTopology(): Promise<void>;
}

type Options = ProxyOptions & ClusterProxyOptions;
/** startProxy for one node; given by the caller so this folder does not import the proxy's entry. */
export type StartNodeProxy = (options: ProxyOptions & { stages?: StageFactory[] }) => Promise<RedisRttProxy>;

/**
 * Cluster mode: one listener per node, each with its own delay lines and tap, and a rewrite stage
 * on every connection that writes the listeners' addresses into topology replies and redirects.
 */
export async function startClusterProxy(
  options: Options,
  startNodeProxy: StartNodeProxy,
  known?: Discovery,
  secure = discoveryTls(options),
): Promise<RedisRttClusterProxy> {
  const log = options.log ?? ((line: string) => process.stderr.write(`redis-rtt: ${line}\n`));
  const upstream = parseRedisEndpoint(options.upstream, '--upstream');
  const listen = parseEndpoint(options.listen ?? '127.0.0.1:0', '--listen');
  if (upstream.kind !== 'tcp') throw new ConfigError('--upstream', options.upstream, 'host:port of a cluster node (cluster mode needs TCP)');
  if (listen.kind !== 'tcp') throw new ConfigError('--listen', options.listen, 'host:port (cluster mode opens one TCP listener per node)');
  const wildcard = listen.host === '0.0.0.0' || listen.host === '::' || listen.host === '';
  const announceHost = options.announceHost ?? (wildcard ? '127.0.0.1' : listen.host);
  if (wildcard && options.announceHost === undefined) log(`listening on ${listen.host}: rewritten replies name 127.0.0.1; set --announce-host for clients on other machines`);
  // The control endpoint's policy (as single-node mode's), checked before any listener opens.
  const controlPlan = planControl(options);
  const zoneCount = checkZones(options.zones);
  const rules = (options.nodeLinks ?? []).map((t) => parseNodeLink(t));
  const zoneLinks = zoneCount === undefined ? undefined : {
    same: parseLinkSpec(options.sameZoneLink ?? DEFAULT_CLUSTER.sameZoneLink, '--same-zone-link'),
    cross: parseLinkSpec(options.crossZoneLink ?? DEFAULT_CLUSTER.crossZoneLink, '--cross-zone-link'),
  };
  const listenPorts = options.listenPorts === undefined ? undefined : parsePortRange(options.listenPorts);
  const auth = { user: options.upstreamUser, password: options.upstreamPassword };
  let found = known;
  if (!found) {
    try {
      found = await discoverCluster(upstream.host, upstream.port, { ...auth, tls: secure?.(upstream.host) });
    } catch (err) {
      throw certificateError(options, err) ?? err;
    }
  }
  if (!found.enabled) throw new ConfigError('--cluster', 'on', `auto or off: ${formatEndpoint(upstream)} is not a cluster node (INFO cluster says cluster_enabled:0)`);
  const seed = found.nodes.find((n) => n.myself);
  if (!seed) throw new ConfigError('--upstream', options.upstream, 'a cluster node whose CLUSTER NODES has a myself line');

  // One generated pair for every node's listener (the CA the start-up line prints), made last so a
  // failure above leaves nothing behind.
  const listenTls = clusterListenTls(options);
  const rewrites = Object.fromEntries(REWRITE_KINDS.map((k) => [k, 0])) as Record<RewriteKind, number>;
  let unparsedTopology = 0;
  const loggedUnparsed = new Set<RewriteKind>();
  let compensationUs = options.compensationUs;
  let insecureWarned = 0;
  /** Stages added on the handle: a node opened later starts with them too. */
  const userStages: StageFactory[] = [...(options.stages ?? [])];
  const eventIds = new ClusterEventIds();
  const nodes: NodeSet = new NodeSet({
    announceHost,
    listenPorts,
    zoneCount,
    zoneLinks,
    base: options.link ?? {},
    rules,
    log,
    stageFor: (a) =>
      rewriteStage({
        selfHost: a.host,
        listenTls: listenTls.listen !== undefined,
        upstreamTls: secure !== undefined,
        directory: { listenerFor: (h, p) => nodes.listenerFor(h, p), open: (list) => nodes.open(list).then(() => void refresh()) },
        onRewrite: (k) => rewrites[k]++,
        onUnparsed: (k, why) => {
          unparsedTopology++;
          if (!loggedUnparsed.has(k)) log(`a ${k} reply could not be parsed and went out unchanged (${why}); counted in /stats cluster.unparsedTopology, logged once`);
          loggedUnparsed.add(k);
        },
        onOpenFailed: (list, err) => log(`could not open a listener for ${list.map((x) => `${x.host}:${x.port}`).join(', ')}: ${String(err)}; the reply went out unchanged`),
      }),
    startNodeProxy: async (a, port, link, stage) => {
      // Known once bound (port 0 = any): the events and link changes that name it come after.
      const at = { upstream: `${a.host}:${a.port}`, listen: '' };
      const onNodeLink = options.onNodeLinkChange;
      const p = await startNodeProxy({
        ...options,
        upstream: at.upstream,
        listen: formatEndpoint({ kind: 'tcp', host: listen.host, port }),
        control: undefined,
        listenTls: listenTls.listen,
        link,
        compensationUs,
        // One stream for all nodes: connection ids unique across them, open events naming the node.
        onEvent: options.onEvent && eventIds.forNode({ node: at.upstream, listen: () => at.listen }, options.onEvent),
        onLinkChange: onNodeLink ? (l) => onNodeLink(at, l) : options.onLinkChange,
        log: (line) => {
          // Every node reads the same --upstream-insecure: one warning is enough.
          if (line.startsWith('WARNING: --upstream-insecure') && insecureWarned++ > 0) return;
          log(`node ${a.host}:${a.port}: ${line}`);
        },
        stages: [stage, ...userStages],
      });
      at.listen = formatEndpoint({ kind: 'tcp', host: announceHost, port: p.port! });
      onNodeLink?.(at, p.link());
      // The seed measures the hop; the other nodes take its figure instead of measuring again.
      compensationUs ??= p.compensationUs;
      return p;
    },
  });

  let refreshing: Promise<void> | undefined;
  const refresh = (): Promise<void> =>
    (refreshing ??= readTopology()
      .catch((err: unknown) => log(`topology refresh failed: ${(err as Error).message}`))
      .finally(() => (refreshing = undefined)));
  const readTopology = async (): Promise<void> => {
    const candidates = [seed, ...nodes.list()];
    for (const c of candidates) {
      try {
        const d = await discoverCluster(c.host, c.port, { ...auth, tls: secure?.(c.host), timeoutMs: 1000 });
        if (d.enabled && d.nodes.length > 0) return nodes.setTopology(d.nodes);
      } catch {
        // that node is down: ask the next
      }
    }
    throw new Error('no node answered CLUSTER NODES');
  };

  let control;
  try {
    await nodes.open([{ host: seed.host, port: seed.port }], listen.port);
    await nodes.setTopology(found.nodes);
  } catch (err) {
    await nodes.close();
    listenTls.cleanup();
    throw err;
  }
  const seedNode = (): ClusterNode => nodes.list()[0]!;
  const view = (n: ClusterNode): ClusterNodeView => ({
    id: n.id,
    upstream: `${n.host}:${n.port}`,
    listen: formatEndpoint({ kind: 'tcp', host: n.listen.host, port: n.listen.port }),
    role: n.role,
    zone: n.zone ?? null,
    link: n.linkName,
    linkSettings: n.proxy.link(),
  });
  const stats = (): ClusterStats => {
    const per = nodes.list().map((n) => ({ n, s: n.proxy.stats() }));
    const merged = mergeSnapshots(per.map((x) => x.s), seedNode().proxy.link());
    return {
      ...merged,
      cluster: {
        nodes: per.map(({ n, s }) => ({ ...view(n), counters: s.totals, connections: s.connections })),
        rewrites: { ...rewrites },
        unparsedTopology,
      },
    };
  };
  const setLink = (update: LinkUpdate & { preset?: string }, selector?: string): LinkSettings => {
    const chosen = nodes.setLink(update, selector);
    if (chosen.length === 0) throw new ConfigError('node', selector, 'a selector that picks at least one node (host:port, id prefix, masters, replicas)');
    return chosen[0]!.proxy.link();
  };
  const connections = (): ConnectionInfo[] => nodes.list().flatMap((n) => n.proxy.connections().map((c) => ({ ...c, node: `${n.host}:${n.port}` })));
  const resetStats = (): void => {
    for (const n of nodes.list()) n.proxy.resetStats();
    for (const k of REWRITE_KINDS) rewrites[k] = 0;
    unparsedTopology = 0;
  };
  try {
    control = await startControl(
      controlPlan,
      { stats, metrics: () => renderMetrics(stats()), reset: resetStats, connections, setLink: (u, node) => ({ nodes: setLinkView(u, node) }) },
      log,
    );
  } catch (err) {
    await nodes.close();
    listenTls.cleanup();
    throw err;
  }
  const setLinkView = (u: LinkUpdate & { preset?: string }, node: string | undefined): ClusterNodeView[] => {
    if (node !== undefined && nodes.list().every((n) => !selects(node, n))) throw new ConfigError('node', node, 'a selector that picks at least one node (host:port, id prefix, masters, replicas)');
    nodes.setLink(u, node);
    return nodes.list().map(view);
  };
  const timer = setInterval(() => void refresh(), options.topologyRefreshMs ?? DEFAULT_CLUSTER.topologyRefreshMs);
  timer.unref();

  let closing: Promise<void> | undefined;
  const first = seedNode();
  return {
    cluster: true,
    address: formatEndpoint({ kind: 'tcp', host: first.proxy.host ?? listen.host, port: first.proxy.port! }),
    host: first.proxy.host,
    port: first.proxy.port,
    controlAddress: control?.address,
    tlsCaFile: listenTls.caFile,
    tlsStats: () => nodes.list().reduce((sum, n) => addTlsCounters(sum, n.proxy.tlsStats?.() ?? newTlsCounters()), newTlsCounters()),
    get compensationUs() {
      return first.proxy.compensationUs;
    },
    setCompensation: (c) => nodes.list().forEach((n) => n.proxy.setCompensation(c)),
    deliveryLatenessUs: () => first.proxy.deliveryLatenessUs(),
    link: () => first.proxy.link(),
    setLink,
    stats,
    resetStats,
    connections,
    nodes: () => nodes.list().map(view),
    // A stage added here runs on every node's connections (a toxic on the whole cluster).
    addStage: (stage, index) => {
      nodes.list().forEach((n) => n.proxy.addStage(stage, index));
      userStages.push(stage);
    },
    removeStage: (name) => {
      userStages.splice(0, userStages.length, ...userStages.filter((s) => s.name !== name));
      return nodes.list().map((n) => n.proxy.removeStage(name)).some(Boolean);
    },
    listStages: () => first.proxy.listStages(),
    // Toxics go on every node known now (a node first seen later starts without them).
    addToxic: (t) => nodes.list().map((n) => n.proxy.addToxic(t))[0]!,
    updateToxic: (name, change) => nodes.list().map((n) => n.proxy.updateToxic(name, change))[0],
    removeToxic: (name) => nodes.list().map((n) => n.proxy.removeToxic(name)).some(Boolean),
    toxics: () => first.proxy.toxics(),
    refreshTopology: refresh,
    close: () =>
      (closing ??= (async () => {
        clearInterval(timer);
        await refreshing;
        await Promise.all([nodes.close(), control?.close()]);
        listenTls.cleanup();
      })()),
  };
}
