import { ConfigError } from '../errors.js';
import { CLUSTER_OPTIONS } from '../proxy/cluster-options.js';
import { parseWith } from '../validation/schema.js';

/** What cluster mode adds to ProxyOptions. */
export type { ClusterProxyOptions } from '../proxy/cluster-options.js';

export const DEFAULT_CLUSTER = {
  sameZoneLink: 'same-az',
  crossZoneLink: 'cross-az',
  topologyRefreshMs: 1000,
} as const;

/** Parses "A-B" into an inclusive port range. */
export function parsePortRange(text: string, flag = '--listen-ports'): { from: number; to: number } {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const from = Number(m?.[1]);
  const to = Number(m?.[2]);
  if (!m || from < 1 || to > 65535 || from > to) throw new ConfigError(flag, text, 'a port range A-B with 1 <= A <= B <= 65535');
  return { from, to };
}

export function parseClusterMode(text: string | undefined, flag = '--cluster'): 'auto' | 'on' | 'off' {
  if (text === undefined) return 'off';
  if (text === 'auto' || text === 'on' || text === 'off') return text;
  throw new ConfigError(flag, text, 'auto | on | off');
}

/**
 * `--same-zone-link` and `--cross-zone-link` are the links of the zones' nodes: without `--zones` every
 * node takes the link given (--rtt, --preset), so one given was ignored without a word. Refused, naming it.
 */
export function checkZoneLinks(links: { sameZoneLink?: string | undefined; crossZoneLink?: string | undefined }, zoneCount: number | undefined): void {
  if (zoneCount !== undefined) return;
  for (const [flag, link] of [['--same-zone-link', links.sameZoneLink], ['--cross-zone-link', links.crossZoneLink]] as const) {
    if (link !== undefined) throw new ConfigError(flag, link, 'to be given with --zones (without zones every node takes the link given: --rtt, --preset, --node-link)');
  }
}

/** `--client-zones N`: needs `--zones`, and N at most its count (a client zone with no node in it would be all cross-zone). */
export function checkClientZones(clientZones: number | undefined, zoneCount: number | undefined, flag = '--client-zones'): number | undefined {
  if (clientZones === undefined) return undefined;
  const n = parseWith(CLUSTER_OPTIONS.clientZones, clientZones, () => flag)!;
  if (zoneCount === undefined) throw new ConfigError(flag, String(clientZones), 'a count with --zones (the client zones are among the nodes\' zones)');
  if (n > zoneCount) throw new ConfigError(flag, String(clientZones), `at most --zones (${zoneCount})`);
  return n;
}

export function checkZones(zones: number | undefined, flag = '--zones'): number | undefined {
  if (zones === undefined) return undefined;
  return parseWith(CLUSTER_OPTIONS.zones, zones, () => flag);
}
