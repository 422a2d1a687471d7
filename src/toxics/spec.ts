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

/** `stream` in any case, as toxiproxy takes it (it lower-cases before it compares): the JSON Schema's pattern. */
export const STREAM_PATTERN = '^(?:[Uu][Pp]|[Dd][Oo][Ww][Nn])[Ss][Tt][Rr][Ee][Aa][Mm]$';

/** `stream`: upstream or downstream, in any case. */
export const STREAM = z.preprocess(
  (v) => (typeof v === 'string' ? v.toLowerCase() : v),
  z.enum(['upstream', 'downstream'], { error: 'upstream or downstream (any case)' }),
);

/** The fields every toxic has, as toxiproxy's API takes them (defaults as toxiproxy's). */
const ENVELOPE = {
  name: z.string({ error: 'a string' }).default('').describe('Unique on its proxy. Default: <type>_<stream>.'),
  stream: STREAM.default('downstream').describe('upstream = client to Redis, in any case; Redis-aware toxics act on request/reply pairs and ignore it.'),
  toxicity: TOXICITY.default(1),
  // What GET /toxics shows beside a toxic's values, so a toxic copied from the API reads back as
  // it was sent: its stage's values are worked out again from the ones sent.
  applied: z.unknown().describe('Output only (the API shows what the stage runs with): ignored when read.').optional(),
};

/** Unknown keys: `ignore`d, as toxiproxy's Go decoder does (its HTTP API), or `refuse`d (a config file, the CLI, startProxy). */
export type UnknownToxicKeys = 'ignore' | 'refuse';

/**
 * A toxic as toxiproxy's API takes it: `{name?, type, stream?, toxicity?, attributes?}`, one
 * object per type with that type's attributes; the one definition of a toxic. `TOXIC` refuses
 * unknown keys, in the toxic and in its attributes: a misspelled attribute would run the toxic
 * with that attribute's default (`"latncy": 5` is a latency toxic of 0 ms) without a word. The
 * HTTP API reads with `TOXIC_IGNORING_UNKNOWN_KEYS`, as toxiproxy does.
 */
export const TOXIC = toxicSchema('refuse');
const TOXIC_IGNORING_UNKNOWN_KEYS = toxicSchema('ignore');

function toxicSchema(unknown: UnknownToxicKeys) {
  const objects = [...TOXIC_TYPES.values()].map((d) => toxicObject(d, unknown));
  return z
    .discriminatedUnion('type', objects as [ToxicObject, ...ToxicObject[]], { error: `one of ${TYPE_NAMES.join(', ')}` })
    .transform(({ applied: _shown, ...t }): ToxicSpec => withApplied({ ...t, name: t.name || `${t.type}_${t.stream}` }));
}

/** The attribute names of a toxic type (undefined for a type there is not). */
export function attributeKeys(type: string): string[] | undefined {
  const d = TOXIC_TYPES.get(type);
  return d && Object.keys(attributesObject(d).shape);
}

/** Whether a toxic type's attribute `key` takes `value` as it is (false for a key the type does not have). */
export function attributeAccepts(type: string, key: string, value: unknown): boolean {
  const d = TOXIC_TYPES.get(type);
  const schema = d && (attributesObject(d).shape[key] as z.ZodType | undefined);
  return schema !== undefined && schema.safeParse(value).success;
}

function attributesObject(d: ToxicDefinition): z.ZodObject<z.core.$ZodLooseShape> {
  return d.attributes as z.ZodObject<z.core.$ZodLooseShape>;
}

function toxicObject(d: ToxicDefinition, unknown: UnknownToxicKeys) {
  const attributes = attributesObject(d);
  if (unknown === 'ignore') return z.object({ ...ENVELOPE, type: z.literal(d.type), attributes: attributes.prefault({}) });
  const keys = attributeKeys(d.type)!;
  const strictAttributes = z.strictObject(attributes.shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `a key of ${d.type}'s attributes: ${keys.join(', ') || 'none'}` : 'a JSON object'),
  });
  const envelope = { ...ENVELOPE, type: z.literal(d.type), attributes: strictAttributes.prefault({}) };
  return z.strictObject(envelope, {
    // `applied` is taken but not offered: it is output only.
    error: (iss) => (iss.code === 'unrecognized_keys' ? 'a key of a toxic: name, type, stream, toxicity, attributes' : undefined),
  });
}
type ToxicObject = ReturnType<typeof toxicObject>;

const TOXIC_ACCEPTS = 'a JSON object like {"type":"latency","attributes":{"latency":1}}';

/**
 * Reads a toxic as toxiproxy's API takes it. Defaults as toxiproxy: stream `downstream`, toxicity
 * 1, name `<type>_<stream>`. Unknown keys are ignored (the API, as toxiproxy) or refused (a config
 * file, the CLI, startProxy). Errors are ConfigErrors whose `flag` is the field (`type`, `stream`,
 * `toxicity`, `attributes.latency`).
 */
export function parseToxicSpec(input: unknown, unknown: UnknownToxicKeys = 'ignore'): ToxicSpec {
  if (!isJsonObject(input)) throw new ConfigError('toxic', input, TOXIC_ACCEPTS);
  const o = absentAsUndefined(input);
  // An empty stream is not an absent one: toxiproxy refuses it ("stream was invalid"), as the schema does.
  if (input.stream === '') o.stream = '';
  if (isJsonObject(o.attributes)) o.attributes = absentAsUndefined(o.attributes);
  // toxiproxy names a toxic by its stream as sent ("latency_UPSTREAM"), though it reads it in any
  // case: a client that then addresses the toxic by that name must find it.
  if (o.name === undefined && typeof o.type === 'string' && typeof o.stream === 'string') o.name = `${o.type}_${o.stream}`;
  return parseWith(unknown === 'refuse' ? TOXIC : TOXIC_IGNORING_UNKNOWN_KEYS, o, keyPath());
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

