import { attributeKeys, parseToxicity } from '../toxics/spec.js';
import { badRequestBody, invalidStream } from './api-error.js';
import { cliAttributes } from './cli-values.js';
import { isJsonObject } from '../validation/schema.js';

/**
 * Request bodies as toxiproxy's Go decoder (encoding/json) reads them, before our schemas do.
 *
 * Keys: Go matches an object's key to a struct field by its JSON name exactly, else ignoring case,
 * so `{"Name":"redis","Upstream":"..."}` creates a proxy and `{"Attributes":{"Latency":7}}` sets a
 * latency. Clients depend on that: Toxiproxy.Net posts its C# objects through RestSharp, whose
 * serializer keeps the properties' PascalCase names. A key given twice (in any case) is the last.
 *
 * null: decoding null into a struct leaves it as it was, so a body of `null` is an empty one: an
 * update changes nothing, a create lacks its name, a populate adds no proxy.
 *
 * A toxic's attributes then go through cliAttributes, for what toxiproxy-cli can send.
 */

const PROXY_FIELDS = ['name', 'listen', 'upstream', 'enabled'] as const;
const TOXIC_FIELDS = ['name', 'type', 'stream', 'toxicity', 'attributes'] as const;
const TOXIC_UPDATE_FIELDS = ['attributes', 'toxicity'] as const;

/** A proxy body (create, update, a populate entry) with its keys as Go would match them. */
export function goProxyBody(body: unknown): unknown {
  return withFields(body ?? {}, PROXY_FIELDS);
}

/** A populate body (or --config file): null is no proxies; each entry is read by goProxyBody. */
export function goPopulateBody(body: unknown): unknown {
  return body ?? [];
}

/** A toxic to add: the envelope's keys, then its attributes' keys once the type names them. */
export function goToxicBody(body: unknown): unknown {
  const toxic = withFields(body ?? {}, TOXIC_FIELDS);
  if (!isJsonObject(toxic) || typeof toxic.type !== 'string') return toxic;
  return withAttributes(toxic, toxic.type);
}

/**
 * What toxiproxy's AddToxicJson refuses before it looks at the toxic's type, in its order: a field
 * of the envelope its decoder cannot read ("bad request body"), then the stream ("stream was
 * invalid"). Our schema names the type first, so a body wrong in two ways was named by another
 * field than toxiproxy names. `body` as goToxicBody made it.
 */
export function checkToxicEnvelope(body: unknown): void {
  if (!isJsonObject(body)) return;
  for (const key of ['name', 'type', 'stream'] as const) {
    const v = body[key];
    if (v !== null && v !== undefined && typeof v !== 'string') throw badRequestBody(`${key}: invalid value ${JSON.stringify(v)}; expected a string`);
  }
  if (body.toxicity !== null && body.toxicity !== undefined) parseToxicity(body.toxicity);
  if (typeof body.stream === 'string' && !['upstream', 'downstream'].includes(body.stream.toLowerCase())) throw invalidStream();
}

/** A toxic update of a toxic of `type`: toxiproxy decodes only its attributes and toxicity. */
export function goToxicUpdateBody(body: unknown, type: string): unknown {
  return withAttributes(withFields(body ?? {}, TOXIC_UPDATE_FIELDS), type);
}

function withAttributes(body: unknown, type: string): unknown {
  const keys = attributeKeys(type);
  if (!isJsonObject(body) || !isJsonObject(body.attributes) || keys === undefined) return body;
  return { ...body, attributes: cliAttributes(type, withFields(body.attributes, keys) as Record<string, unknown>) };
}

/**
 * The object with each key that names one of `fields` in another case renamed to it, as Go's
 * decoder matches them; a non-object as it is (the schema refuses it). Other keys stay as sent.
 */
function withFields(value: unknown, fields: readonly string[]): unknown {
  if (!isJsonObject(value)) return value;
  // A Map, then fromEntries: a "__proto__" key sent stays an own key, as JSON.parse made it (set on
  // an object literal it would become the object's prototype, its fields read as the body's).
  const out = new Map<string, unknown>();
  for (const [key, v] of Object.entries(value)) {
    const field = fields.includes(key) ? key : fields.find((f) => f.length === key.length && fold(f) === fold(key));
    out.set(field ?? key, v);
  }
  return Object.fromEntries(out);
}

/**
 * Go's case folding of a key: simple folding, so the Kelvin sign matches `k` and `ſ` matches `s`
 * (the caller's equal lengths keep out JavaScript's full folding, where `ß` would match `ss`).
 */
function fold(key: string): string {
  return key.toUpperCase().toLowerCase();
}
