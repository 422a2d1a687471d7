import type { RequestInfo } from '../../stage/types.js';
import { optionalStringAttr, stringListAttr } from '../attributes.js';
import { compileGlob } from './glob.js';

/** The attributes every Redis-aware toxic shares (its schema spreads into each one's). */
export const MATCH_ATTRS = {
  commands: stringListAttr()
    .transform((names) => names.map((c) => c.toUpperCase()))
    .describe('Command names (any case); empty = every command.'),
  keys: optionalStringAttr().describe("Glob on the command's first key; empty = any (and commands without a key)."),
};

export interface MatchAttrs {
  commands: string[];
  keys: string;
}

/**
 * Whether a request is one the toxic targets. Commands queued inside MULTI never match: answering
 * one locally would leave Redis's transaction and the client's out of step. EXEC itself can.
 */
export function matcher(m: MatchAttrs): (req: RequestInfo) => boolean {
  const names = m.commands.length > 0 ? new Set(m.commands) : undefined;
  const glob = m.keys ? compileGlob(m.keys) : undefined;
  return (req) => {
    if (req.inMulti) return false;
    if (names && !names.has(req.name)) return false;
    if (glob && (req.firstKey === undefined || !glob(req.firstKey))) return false;
    return true;
  };
}

/** Caches the compiled matcher per attributes object (attributes are replaced whole on update). */
export function liveMatcher(attrs: () => MatchAttrs): (req: RequestInfo) => boolean {
  let seen: MatchAttrs | undefined;
  let fn: (req: RequestInfo) => boolean = () => false;
  return (req) => {
    const a = attrs();
    if (a !== seen) {
      seen = a;
      fn = matcher(a);
    }
    return fn(req);
  };
}
