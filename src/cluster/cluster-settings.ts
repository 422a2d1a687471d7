import { parseEndpoint, parseRedisEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import { parseLinkSpec, type LinkSpec } from '../link/link-spec.js';
import { planControl, type ControlPlan } from '../proxy/start-control.js';
import type { ProxyOptions } from '../proxy/types.js';
import { parseNodeLink, type NodeLinkRule } from './node-link.js';
import { checkClientZones, checkZoneLinks, checkZones, DEFAULT_CLUSTER, parsePortRange, type ClusterProxyOptions } from './options.js';

/** Cluster mode's options, checked before any listener opens. */
export interface ClusterSettings {
  upstream: { host: string; port: number };
  listen: { host: string; port: number };
  /** The host rewritten replies name. */
  announceHost: string;
  control: ControlPlan | undefined;
  zoneCount: number | undefined;
  /** --client-zones: one listener set per client zone; undefined: one set, the clients in zone 1. */
  clientZoneCount: number | undefined;
  zoneLinks: { same: LinkSpec; cross: LinkSpec } | undefined;
  rules: NodeLinkRule[];
  listenPorts: { from: number; to: number } | undefined;
  topologyRefreshMs: number;
}

/** A ConfigError naming the flag for anything cluster mode cannot run with. */
export function clusterSettings(options: ProxyOptions & ClusterProxyOptions, log: (line: string) => void): ClusterSettings {
  const upstream = parseRedisEndpoint(options.upstream, '--upstream');
  const listen = parseEndpoint(options.listen ?? '127.0.0.1:0', '--listen');
  if (upstream.kind !== 'tcp') throw new ConfigError('--upstream', options.upstream, 'host:port of a cluster node (cluster mode needs TCP)');
  if (listen.kind !== 'tcp') throw new ConfigError('--listen', options.listen, 'host:port (cluster and sentinel modes open one TCP listener per node)');
  const wildcard = listen.host === '0.0.0.0' || listen.host === '::' || listen.host === '';
  const announceHost = options.announceHost ?? (wildcard ? '127.0.0.1' : listen.host);
  if (wildcard && options.announceHost === undefined) log(`listening on ${listen.host}: rewritten replies name 127.0.0.1; set --announce-host for clients on other machines`);
  // The control endpoint's policy, as single-node mode's.
  const control = planControl(options);
  const zoneCount = checkZones(options.zones);
  const clientZoneCount = checkClientZones(options.clientZones, zoneCount);
  checkZoneLinks(options, zoneCount);
  const rules = (options.nodeLinks ?? []).map((t) => parseNodeLink(t));
  const zoneLinks =
    zoneCount === undefined
      ? undefined
      : {
          same: parseLinkSpec(options.sameZoneLink ?? DEFAULT_CLUSTER.sameZoneLink, '--same-zone-link'),
          cross: parseLinkSpec(options.crossZoneLink ?? DEFAULT_CLUSTER.crossZoneLink, '--cross-zone-link'),
        };
  if (zoneLinks && baseLinkGiven(options.link)) {
    log(`the link given (--rtt, --preset, ...) is not used with --zones: each node takes --same-zone-link (${zoneLinks.same.name}) or --cross-zone-link (${zoneLinks.cross.name}), or a --node-link`);
  }
  const listenPorts = options.listenPorts === undefined ? undefined : parsePortRange(options.listenPorts);
  return {
    upstream,
    listen,
    announceHost,
    control,
    zoneCount,
    clientZoneCount,
    zoneLinks,
    rules,
    listenPorts,
    topologyRefreshMs: options.topologyRefreshMs ?? DEFAULT_CLUSTER.topologyRefreshMs,
  };
}

/**
 * A base link that says something: the CLI always passes its defaults (jitterUs 0, a jitterDist,
 * bandwidthBps 0 = unlimited), which change nothing alone and must not draw the warning.
 */
function baseLinkGiven(link: ProxyOptions['link']): boolean {
  const noOp = (key: string, value: unknown): boolean => key === 'jitterDist' || ((key === 'jitterUs' || key === 'bandwidthBps') && value === 0);
  return Object.entries(link ?? {}).some(([key, value]) => value !== undefined && !noOp(key, value));
}
