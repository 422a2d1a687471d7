import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { isJsonObject, keyPath, parseWith } from '../validation/schema.js';
import { absentAsUndefined } from './attributes.js';
import type { ToxicDefinition } from './definition.js';
import { TOXIC_TYPES } from './registry.js';
import type { ToxicSpec } from './types.js';

const TYPE_NAMES = [...TOXIC_TYPES.keys()];

/** Any number, as toxiproxy's float32: below 0 acts as 0 (never), above 1 as 1 (always). */
export const TOXICITY = z
  .number({ error: 'a number (0 to 1; below 0 acts as 0, above 1 as 1)' })
  .describe('Probability: per connection for byte toxics (as toxiproxy), per command for Redis-aware ones.');

/** The fields every toxic has, as toxiproxy's API takes them (defaults as toxiproxy's). */
const ENVELOPE = {
  name: z.string({ error: 'a string' }).default('').describe('Unique on its proxy. Default: <type>_<stream>.'),
  // toxiproxy lower-cases it before it compares.
  stream: z
    .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['upstream', 'downstream'], { error: 'upstream or downstream' }))
    .default('downstream')
    .describe('upstream = client to Redis; Redis-aware toxics act on request/reply pairs and ignore it.'),
  toxicity: TOXICITY.default(1),
};

/**
 * A toxic as toxiproxy's API takes it: `{name?, type, stream?, toxicity?, attributes?}`, one
 * object per type with that type's attributes. Unknown keys are ignored, as Go's decoder does.
 */
export const TOXIC = z
  .discriminatedUnion('type', [...TOXIC_TYPES.values()].map(toxicObject) as [ToxicObject, ...ToxicObject[]], {
    error: `one of ${TYPE_NAMES.join(', ')}`,
  })
  .transform((t): ToxicSpec => withApplied({ ...t, name: t.name || `${t.type}_${t.stream}` }));

function toxicObject(d: ToxicDefinition) {
  return z.object({ ...ENVELOPE, type: z.literal(d.type), attributes: (d.attributes as z.ZodType<Record<string, unknown>>).prefault({}) });
}
type ToxicObject = ReturnType<typeof toxicObject>;

const TOXIC_ACCEPTS = 'a JSON object like {"type":"latency","attributes":{"latency":1}}';

/**
 * Reads a toxic as toxiproxy's API takes it. Defaults as toxiproxy: stream `downstream`, toxicity
 * 1, name `<type>_<stream>`. Errors are ConfigErrors whose `flag` is the field (`type`, `stream`,
 * `toxicity`, `attributes.latency`).
 */
export function parseToxicSpec(input: unknown): ToxicSpec {
  if (!isJsonObject(input)) throw new ConfigError('toxic', input, TOXIC_ACCEPTS);
  const o = absentAsUndefined(input);
  if (isJsonObject(o.attributes)) o.attributes = absentAsUndefined(o.attributes);
  return parseWith(TOXIC, o, keyPath());
}

/** Validates attributes for a type and fills in its defaults. */
export function parseAttributes(type: string, raw: unknown): Record<string, unknown> {
  const def = TOXIC_TYPES.get(type);
  if (!def) throw new ConfigError('type', type, `one of ${TYPE_NAMES.join(', ')}`);
  return parseWith(def.attributes, isJsonObject(raw) ? absentAsUndefined(raw) : raw, keyPath('attributes')) as Record<string, unknown>;
}

export function parseToxicity(v: unknown): number {
  return parseWith(TOXICITY, v, () => 'toxicity');
}

/**
 * The spec with `applied` set to what its stage runs with when that differs from what was sent:
 * toxicity within [0, 1], negative numbers as 0 (toxiproxy's stages treat a negative delay, rate
 * or timeout as none), then the type's own clamp (slicer). The attributes stay as sent.
 */
export function withApplied(spec: ToxicSpec): ToxicSpec {
  const { applied: _old, ...sent } = spec;
  const def = TOXIC_TYPES.get(spec.type)!;
  const floored = Object.fromEntries(Object.entries(spec.attributes).map(([k, v]) => [k, typeof v === 'number' && v < 0 ? 0 : v]));
  const attributes = def.applied ? def.applied(floored) : floored;
  const toxicity = Math.min(1, Math.max(0, spec.toxicity));
  const same = toxicity === spec.toxicity && Object.entries(attributes).every(([k, v]) => v === spec.attributes[k]);
  return same ? sent : { ...sent, applied: { toxicity, attributes } };
}

