import { ConfigError } from '../errors.js';
import { parseLinkSpec, type LinkSpec } from '../link/link-spec.js';
import { PRESET_NAMES } from '../link/presets.js';

/**
 * What a bench's `--links` accepts, closed and open loop alike: the help says it and every error
 * about the list names it, so the two cannot drift apart.
 */
export const LINKS_ACCEPTED =
  `direct (no proxy), local (proxy, no delay), ${PRESET_NAMES.filter((p) => p !== 'local').join(', ')}, or rtt=2ms/jitter=0.2ms`;

/** The links the demo compares; here, not in demo.ts, so that the CLI's help names them without loading the bench. */
export const DEMO_LINKS = ['direct', 'local', 'same-az', 'cross-az', 'cross-region'];

/** A bench's links: each name once, in the order given, parsed; an empty list is refused naming --links. */
export function resolveBenchLinks(names: readonly string[]): LinkSpec[] {
  const unique = [...new Set(names.map((l) => l.trim()))];
  if (unique.length === 0) throw new ConfigError('--links', '', LINKS_ACCEPTED);
  return unique.map((l) => parseLinkSpec(l, '--links'));
}
