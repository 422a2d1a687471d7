import { attributeAccepts } from '../toxics/spec.js';

/**
 * Where toxiproxy's API listens unless told (toxiproxy-cli's default too); here, not in toxiproxy-server.ts,
 * so that the CLI's help shows it without loading the server.
 */
export const DEFAULT_API = '127.0.0.1:8474';

/**
 * Attributes as toxiproxy-cli sends them. Its `-a key=value` becomes a JSON number when the value
 * reads as one and a string otherwise, so it cannot send a Redis-aware toxic's list (`commands`)
 * or flag (`close`): `-a commands=GET` was a 400 "expected an array of non-empty strings". A string
 * such an attribute refuses is read as the CLI's user wrote it: `commands=GET,SET` the list
 * ["GET","SET"], `close=true` the boolean; a number a string attribute refuses, as its digits
 * (`keys=2024`). Any other value is left for the schema to judge.
 */
export function cliAttributes(type: string, attributes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).map(([key, v]) => [key, fromCli(type, key, v)]));
}

function fromCli(type: string, key: string, v: unknown): unknown {
  if (typeof v === 'string') return fromCliString(type, key, v);
  // `-a keys=2024` or `-a error=404` came as a number: the text the user typed, for a string attribute.
  if (typeof v === 'number' && !attributeAccepts(type, key, v) && attributeAccepts(type, key, String(v))) return String(v);
  return v;
}

function fromCliString(type: string, key: string, text: string): unknown {
  if (attributeAccepts(type, key, text)) return text;
  const list = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (attributeAccepts(type, key, list)) return list;
  const flag = text === 'true' ? true : text === 'false' ? false : undefined;
  if (flag !== undefined && attributeAccepts(type, key, flag)) return flag;
  return text;
}
