import { ConfigError } from '../errors.js';
import type { Attrs } from './attributes.js';
import { TOXIC_TYPES } from './registry.js';
import type { Stream, ToxicSpec } from './types.js';

/**
 * Reads a toxic as toxiproxy's API takes it: `{name?, type, stream?, toxicity?, attributes?}`.
 * Defaults as toxiproxy: stream `downstream`, toxicity 1, name `<type>_<stream>`. Errors are
 * ConfigErrors whose `flag` is the field (`type`, `stream`, `toxicity`, `attributes.latency`).
 */
export function parseToxicSpec(input: unknown): ToxicSpec {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigError('toxic', input, 'a JSON object like {"type":"latency","attributes":{"latency":1}}');
  }
  const o = input as Record<string, unknown>;
  const stream = o['stream'] ?? 'downstream';
  if (stream !== 'upstream' && stream !== 'downstream') throw new ConfigError('stream', stream, 'upstream or downstream');
  const type = o['type'];
  const def = typeof type === 'string' ? TOXIC_TYPES.get(type) : undefined;
  if (!def) throw new ConfigError('type', type, `one of ${[...TOXIC_TYPES.keys()].join(', ')}`);
  const name = o['name'] ?? '';
  if (typeof name !== 'string') throw new ConfigError('name', name, 'a string');
  const toxicity = parseToxicity(o['toxicity'] ?? 1);
  return {
    name: name || `${def.type}_${stream}`,
    type: def.type,
    stream: stream as Stream,
    toxicity,
    attributes: parseAttributes(def.type, o['attributes'] ?? {}),
  };
}

/** Validates attributes for a type and fills in its defaults. */
export function parseAttributes(type: string, raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError('attributes', raw, 'a JSON object');
  const def = TOXIC_TYPES.get(type);
  if (!def) throw new ConfigError('type', type, `one of ${[...TOXIC_TYPES.keys()].join(', ')}`);
  return def.parse(raw as Attrs) as Record<string, unknown>;
}

export function parseToxicity(v: unknown): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new ConfigError('toxicity', v, 'a number from 0 to 1');
  return v;
}
