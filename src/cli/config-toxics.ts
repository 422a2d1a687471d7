/**
 * A config file's toxics, key by key. toxiproxy's API ignores unknown keys (Go's decoder), and so
 * does ours (src/toxics/spec.ts); a config file refuses them, as it does every other key: a
 * misspelled attribute would run the toxic with that attribute's default (`"latncy": 5` is a
 * latency toxic of 0 ms) without a word.
 */
import { ConfigError } from '../errors.js';
import { TOXIC_TYPES } from '../toxics/registry.js';
import { isJsonObject } from '../validation/schema.js';

const TOXIC_KEYS = ['name', 'type', 'stream', 'toxicity', 'attributes'];

/** Throws a ConfigError naming `at(path)` of the first key a toxic of the file does not have. */
export function refuseUnknownToxicKeys(toxics: readonly unknown[], at: (path: string) => string): void {
  toxics.forEach((toxic, i) => {
    if (!isJsonObject(toxic)) return; // the schema has said what a toxic is
    const unknown = Object.keys(toxic).find((k) => !TOXIC_KEYS.includes(k));
    if (unknown !== undefined) throw new ConfigError(at(`toxics[${i}].${unknown}`), toxic[unknown], `a key of a toxic: ${TOXIC_KEYS.join(', ')}`);
    const shape = (TOXIC_TYPES.get(String(toxic.type))?.attributes as { shape?: Record<string, unknown> } | undefined)?.shape;
    const attributes = toxic.attributes;
    if (shape === undefined || !isJsonObject(attributes)) return;
    const bad = Object.keys(attributes).find((k) => !Object.hasOwn(shape, k));
    if (bad !== undefined) {
      throw new ConfigError(at(`toxics[${i}].attributes.${bad}`), attributes[bad], `a key of ${String(toxic.type)}'s attributes: ${Object.keys(shape).join(', ')}`);
    }
  });
}
