import { isIP } from 'node:net';
import { z } from 'zod';
import { isHostName } from '../endpoint.js';
import type { LinkSettings } from '../link/types.js';
import { refreshPeriodMs, wholeNumber } from '../validation/schema.js';

const PORT_RANGE = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/;

/** Cluster mode's options on startProxy (the cluster folder implements them: docs/cluster.md). */
export const CLUSTER_OPTIONS = {
  cluster: z
    .enum(['auto', 'on', 'off'], { error: 'auto | on | off' })
    .describe(
      "auto: cluster mode when the upstream's INFO cluster says cluster_enabled:1; on: require it; off: one listener, bytes " +
        "untouched. Default 'off' in the library, 'auto' in `redis-rtt proxy`.",
    )
    .optional(),
  announceHost: z
    .string({ error: 'a host name or address' })
    .min(1, { error: 'a host name or an IPv4 or IPv6 address' })
    // Written into CLUSTER NODES lines (space-separated) and RESP replies: a space or a "-1" would
    // break every client's topology, not this start.
    .refine((h) => isIP(h) !== 0 || isHostName(h), { error: 'a host name or an IPv4 or IPv6 address' })
    .describe('The host written into rewritten replies. Default: the listen host (127.0.0.1 for 0.0.0.0 / ::).')
    .optional(),
  listenPorts: z
    .string({ error: 'a port range A-B with 1 <= A <= B <= 65535' })
    .refine((t) => {
      const m = PORT_RANGE.exec(t);
      return m !== null && Number(m[1]) >= 1 && Number(m[2]) <= 65535 && Number(m[1]) <= Number(m[2]);
    })
    .describe('Ports for the listeners of the nodes other than the seed, "A-B". Default: any free port.')
    .optional(),
  zones: wholeNumber(1, 16).describe('Place the nodes in this many zones (docs/cluster.md); the client is in zone 1.').optional(),
  clientZones: wholeNumber(1, 16)
    .describe(
      'Clients in this many zones (at most `zones`): one set of listeners per client zone, each rewriting to its own listeners ' +
        'and linking each node by whether it sits in that zone (docs/cluster.md). Cluster and Sentinel modes only.',
    )
    .optional(),
  sameZoneLink: z.string({ error: 'a link: a preset or rtt=...' }).describe("Link of the nodes in the client's zone. Default 'same-az'.").optional(),
  crossZoneLink: z.string({ error: 'a link: a preset or rtt=...' }).describe("Link of the nodes in other zones. Default 'cross-az'.").optional(),
  nodeLinks: z.array(z.string({ error: 'SELECTOR=LINK strings' }), { error: 'an array of SELECTOR=LINK strings' }).describe('"SELECTOR=LINK" overrides, later ones win.').optional(),
  upstreamUser: z
    .string({ error: 'an ACL user name' })
    .min(1, { error: 'an ACL user name' })
    .describe("ACL user for the proxy's own discovery connections (with upstreamPassword).")
    .optional(),
  upstreamPassword: z
    .string({ error: 'a string' })
    .describe("Password for the proxy's own discovery connections (the CLI reads REDIS_RTT_UPSTREAM_PASSWORD).")
    .optional(),
  topologyRefreshMs: refreshPeriodMs('How often the proxy re-reads CLUSTER NODES to follow failovers and new nodes, in ms (at least 10). Default 1000.'),
};

/** The cluster options' values (CLUSTER_OPTIONS is their schema) and the one hook cluster mode adds. */
export type ClusterProxyOptions = z.input<z.ZodObject<typeof CLUSTER_OPTIONS>> & {
  /**
   * Told each node's link when its listener starts and after every change (zones, node links, PUT
   * /link), with the node's real address and its listener. Given, it replaces onLinkChange in
   * cluster mode (which otherwise hears every node's changes without saying which). For --record.
   */
  onNodeLinkChange?: (node: { upstream: string; listen: string }, link: LinkSettings) => void;
};
