import { z } from 'zod';

/**
 * Schemas for toxic attributes, one per kind of value, each saying what it accepts once (the
 * ConfigError names the field: `attributes.latency`, so the API's 400 and the CLI's exit 2 both say
 * what to fix). toxiproxy decodes into Go integers; we accept JSON numbers (fractions where the
 * unit allows them) and ignore unknown keys, as Go's decoder does. A null or "" reads as absent
 * (Go's zero value): `absentAsUndefined` drops them before a schema sees the object.
 *
 * No number has a range: toxiproxy takes any integer, and a client's test compares the attributes
 * it gets back with those it sent. What cannot work as sent (a negative delay, a slice size of 0)
 * is clamped by `appliedAttributes` (spec.ts), which the stages read; the API shows it as `applied`.
 */
export type Attrs = Record<string, unknown>;

export function absentAsUndefined(o: object): Attrs {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== ''));
}

export function numberAttr(opts: { default: number; integer?: boolean; unit: string }): z.ZodDefault<z.ZodNumber>;
export function numberAttr(opts: { integer?: boolean; unit: string }): z.ZodNumber;
export function numberAttr(opts: { default?: number; integer?: boolean; unit: string }): z.ZodNumber | z.ZodDefault<z.ZodNumber> {
  const accepts = `${opts.integer ? 'an integer' : 'a number'} (${opts.unit}${opts.default === undefined ? ', required' : ''})`;
  const n = (opts.integer ? z.int({ error: accepts }) : z.number({ error: accepts })).describe(opts.unit);
  return opts.default === undefined ? n : n.default(opts.default);
}

export function boolAttr(def: boolean): z.ZodDefault<z.ZodBoolean> {
  return z.boolean({ error: 'true or false' }).default(def);
}

export function requiredStringAttr(): z.ZodString {
  return z.string({ error: 'a non-empty string (required)' }).min(1);
}

export function optionalStringAttr(def = ''): z.ZodDefault<z.ZodString> {
  return z.string({ error: 'a string' }).default(def);
}

export function oneOfAttr<const T extends readonly [string, ...string[]]>(values: T, def: T[number]): z.ZodDefault<z.ZodEnum<{ [K in T[number]]: K }>> {
  return z.enum(values, { error: `one of ${values.join(', ')}` }).default(def as never) as never;
}

export function stringListAttr(): z.ZodDefault<z.ZodArray<z.ZodString>> {
  const accepts = 'an array of non-empty strings';
  return z.array(z.string({ error: accepts }).min(1), { error: accepts }).default([]);
}

/** A toxic type's attributes: an object of these fields (unknown keys ignored). */
export function attributesOf<S extends z.core.$ZodLooseShape>(shape: S): z.ZodObject<S> {
  return z.object(shape, { error: 'a JSON object' });
}
