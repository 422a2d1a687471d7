import { ConfigError } from '../errors.js';
import { parseCompensationTable } from '../link/compensation.js';
import type { LinkSpec } from '../link/link-spec.js';

/**
 * A bench's `compensation` (closed and open loop alike): 'off', 'auto', microseconds of 0 or more,
 * or `{ table }` from `calibrate`. Given with links that are all `direct`, it is refused: it is what
 * a link's proxy takes off its delays, and with no proxy in the path `--compensate auto` ran as if
 * it had not been typed, while the command line said it had (docs/cli.md, "Compensation").
 */
export function checkBenchCompensation(c: unknown, links: readonly LinkSpec[]): void {
  if (c === undefined) return;
  if (typeof c === 'object' && c !== null) parseCompensationTable((c as { table?: unknown }).table, '--compensate');
  else if (c !== 'off' && c !== 'auto' && !(typeof c === 'number' && Number.isFinite(c) && c >= 0)) {
    throw new ConfigError('--compensate', c, 'off, auto, a duration or a calibrate table');
  }
  if (links.every((l) => l.direct)) {
    throw new ConfigError('--compensate', c, 'a link with a proxy in --links (direct has none, so there is nothing to take its cost off)');
  }
}
