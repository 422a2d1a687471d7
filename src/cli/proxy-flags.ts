/**
 * `redis-rtt proxy`'s flag values, and the flags read before anything starts: the addresses (so
 * --print-config refuses what the start would) and the limits, read into startProxy()'s options.
 */
import { parseEndpoint, parseRedisEndpoint, type Endpoint } from '../endpoint.js';
import { parseAllowHost } from '../http/guard.js';
import { parseLinkSpec } from '../link/link-spec.js';
import { parseNodeLink } from '../cluster/node-link.js';
import type { ProxyOptions } from '../proxy/types.js';
import type { RecordFlagValues } from '../record/cli-options.js';
import { sentinelSettings } from '../sentinel/options.js';
import { parseBytes, parseDurationOrOffUs, parseDurationUs, parseNonNegativeInt, parsePositiveInt } from '../units.js';
import { CLUSTER_OPTIONS } from '../proxy/cluster-options.js';
import { PROXY_OPTIONS } from '../proxy/options-schema.js';
import { ConfigError } from '../errors.js';
import { parseWith } from '../validation/schema.js';
import type { LinkFlagValues } from './link-flags.js';
import { sentinelFromFlags, type SentinelFileKeys, type SentinelFlagValues } from './sentinel-flags.js';
import type { TimelineFlagValues } from './timeline-flags.js';
import type { TlsFlagValues } from './tls-flags.js';
import type { ToxicFlagValues } from './toxic-flags.js';

export interface ProxyFlags extends LinkFlagValues, TimelineFlagValues, RecordFlagValues, TlsFlagValues, ToxicFlagValues, SentinelFlagValues {
  listen: string;
  upstream?: string;
  control?: string;
  controlToken?: string;
  allowHost: string[];
  handshake: boolean;
  tap: boolean;
  compensate: string;
  highWater: string;
  connectTimeout: string;
  idleTimeout: string;
  maxConnections: string;
  warmUp: string;
  maxPending: string;
  maxPendingTotal: string;
  statsJson?: string;
  cluster: string;
  announceHost?: string;
  listenPorts?: string;
  zones?: string;
  clientZones?: string;
  sameZoneLink: string;
  crossZoneLink: string;
  nodeLink: string[];
  upstreamUser?: string;
  config?: string;
  printConfig?: boolean;
  /** With --config: the flags (attribute -> key) whose value is the file's key, for errors that name it. */
  fileKeys?: Readonly<Record<string, string>>;
}

const NO_CONTROL = 'to be given with --control (without it there is no control endpoint to guard)';

/** The addresses and the link and host rules, read now: a start reads some only in the mode they apply to. */
export function checkAddressFlags(
  flags: ProxyFlags,
  file?: SentinelFileKeys,
): { sentinel: ReturnType<typeof sentinelFromFlags>; upstream: Endpoint | undefined } {
  const sentinel = sentinelFromFlags(flags, file);
  if (sentinel) sentinelSettings(sentinel);
  const upstream = sentinel ? undefined : parseRedisEndpoint(flags.upstream!, '--upstream');
  parseEndpoint(flags.listen, '--listen');
  if (flags.control !== undefined) parseEndpoint(flags.control, '--control');
  // A start reads these only where they apply (zones, cluster or Sentinel mode, a TCP --control):
  // read now, a typo fails here, not once the same command line meets that mode.
  for (const [text, flag] of [[flags.sameZoneLink, '--same-zone-link'], [flags.crossZoneLink, '--cross-zone-link']] as const) {
    if (text !== undefined) parseLinkSpec(text, flag);
  }
  for (const rule of flags.nodeLink) parseNodeLink(rule, '--node-link');
  for (const host of flags.allowHost) parseAllowHost(host, '--allow-host');
  if (flags.controlToken !== undefined) parseWith(PROXY_OPTIONS.shape.controlToken, flags.controlToken, () => '--control-token');
  // With no control endpoint these guard nothing: refused (a bad value first), as the record flags are without --record.
  if (flags.control === undefined && flags.controlToken !== undefined) throw new ConfigError('--control-token', '(redacted)', NO_CONTROL);
  // The last host: a typed one where any was typed (the file's come first), so the flag is named with its own value.
  if (flags.control === undefined && flags.allowHost.length > 0) throw new ConfigError('--allow-host', flags.allowHost.at(-1), NO_CONTROL);
  // Before cluster discovery, which would otherwise be tried (and a failure logged) with a value the start refuses.
  if (flags.announceHost !== undefined) parseWith(CLUSTER_OPTIONS.announceHost, flags.announceHost, () => '--announce-host');
  return { sentinel, upstream };
}

/** The size, time and count limits, as startProxy() takes them. */
export function limitsFromFlags(
  flags: ProxyFlags,
): Pick<ProxyOptions, 'highWaterBytes' | 'connectTimeoutMs' | 'idleTimeoutMs' | 'maxConnections' | 'warmUpConnections' | 'maxPendingPerConnection' | 'maxPendingTotal'> {
  return {
    highWaterBytes: parseBytes(flags.highWater, '--high-water'),
    connectTimeoutMs: connectTimeoutMs(flags.connectTimeout),
    idleTimeoutMs: Math.ceil(parseDurationOrOffUs(flags.idleTimeout, '--idle-timeout', 'never') / 1000),
    maxConnections: parseNonNegativeInt(flags.maxConnections, '--max-connections'),
    warmUpConnections: parseNonNegativeInt(flags.warmUp, '--warm-up'),
    maxPendingPerConnection: parsePositiveInt(flags.maxPending, '--max-pending'),
    maxPendingTotal: parsePositiveInt(flags.maxPendingTotal, '--max-pending-total'),
  };
}

/**
 * --connect-timeout in whole milliseconds, checked here by the option's own rule: at the start its
 * error showed the rounded number (`invalid value 0` for "0.1ms"), and --print-config passed it.
 */
function connectTimeoutMs(text: string): number {
  const ms = Math.round(parseDurationUs(text, '--connect-timeout') / 1000);
  // The option's own message names startProxy()'s upper bound (Node's timer limit); the flag's is an hour.
  if (!PROXY_OPTIONS.shape.connectTimeoutMs.safeParse(ms).success) {
    throw new ConfigError('--connect-timeout', text, 'a duration from 1ms to 1 hour, in whole milliseconds');
  }
  return ms;
}

/** The flags the start checks as the numbers read from them, by the text typed for each. */
export function typedNumbers(flags: ProxyFlags): Record<string, string | undefined> {
  return {
    '--zones': flags.zones,
    '--client-zones': flags.clientZones,
    '--high-water': flags.highWater,
    '--idle-timeout': flags.idleTimeout,
    '--max-connections': flags.maxConnections,
    '--warm-up': flags.warmUp,
    '--max-pending': flags.maxPending,
    '--max-pending-total': flags.maxPendingTotal,
  };
}
