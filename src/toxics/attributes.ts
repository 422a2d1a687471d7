import { ConfigError } from '../errors.js';

/**
 * Readers for toxic attributes. Each names the field in its error (`attributes.latency`), so the
 * API's 400 and the CLI's exit 2 both say what to fix. toxiproxy decodes into Go integers; we
 * accept JSON numbers (fractions where the unit allows them) and leave unknown keys alone, as Go's
 * decoder does.
 */
export type Attrs = Record<string, unknown>;

export function numberAttr(
  attrs: Attrs,
  key: string,
  opts: { default?: number; min?: number; integer?: boolean; unit: string },
): number {
  const v = attrs[key];
  if (v === undefined || v === null) {
    if (opts.default === undefined) throw new ConfigError(`attributes.${key}`, v, `a number (${opts.unit}, required)`);
    return opts.default;
  }
  const min = opts.min ?? 0;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || (opts.integer && !Number.isInteger(v))) {
    throw new ConfigError(`attributes.${key}`, v, `${opts.integer ? 'an integer' : 'a number'} >= ${min} (${opts.unit})`);
  }
  return v;
}

export function boolAttr(attrs: Attrs, key: string, def: boolean): boolean {
  const v = attrs[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw new ConfigError(`attributes.${key}`, v, 'true or false');
  return v;
}

export function stringAttr(attrs: Attrs, key: string, opts: { required?: boolean; oneOf?: readonly string[]; def?: string }): string {
  const v = attrs[key];
  if (v === undefined || v === null || v === '') {
    if (opts.required) throw new ConfigError(`attributes.${key}`, v, 'a non-empty string (required)');
    return opts.def ?? '';
  }
  if (typeof v !== 'string') throw new ConfigError(`attributes.${key}`, v, 'a string');
  if (opts.oneOf && !opts.oneOf.includes(v)) throw new ConfigError(`attributes.${key}`, v, `one of ${opts.oneOf.join(', ')}`);
  return v;
}

export function stringListAttr(attrs: Attrs, key: string): string[] {
  const v = attrs[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x.length > 0)) {
    throw new ConfigError(`attributes.${key}`, v, 'an array of non-empty strings');
  }
  return v as string[];
}
