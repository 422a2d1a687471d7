/**
 * The bridge between zod schemas and ConfigError, and the number checks every schema shares.
 *
 * Each schema states what it accepts once, as its `error`: zod then uses that text for every way
 * the value can be wrong (type, range, integer), and `parseWith` turns the first issue into a
 * ConfigError that names the flag or key (the issue's path) and that text. Why zod 4: the
 * dependency table in docs/CONTRIBUTING.md. Each body's schema lives beside what it
 * configures (link/settings.ts, toxics/spec.ts, proxy/options-schema.ts, toxiproxy-api/proxy-body.ts).
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { MAX_TIMER_MS } from './known-keys.js';

/** True for what JSON.parse gives for `{...}`: not null, not an array. The one such check. */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Names the flag for an issue's path: a CLI flag where the key has one, else the dotted key. */
export type FlagOf = (path: readonly PropertyKey[]) => string;

/** `prefix.a.b[2]`-style names, the form ConfigErrors have used for nested keys (`attributes.latency`). */
export function keyPath(prefix = ''): FlagOf {
  return (path) => {
    let out = prefix;
    for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
    return out;
  };
}

/**
 * The value the schema accepts (its output: defaults filled in, transforms applied), or a
 * ConfigError for the first problem. An unknown key of a strict object is named as the key.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, flagOf: FlagOf = keyPath()): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw issueError(r.error.issues[0]!, input, flagOf);
}

export function issueError(issue: z.core.$ZodIssue, input: unknown, flagOf: FlagOf): ConfigError {
  const inner = issue.code === 'invalid_union' ? matchedBranchIssue(issue) : undefined;
  if (inner !== undefined) return issueError({ ...inner, path: [...issue.path, ...inner.path] }, input, flagOf);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    return new ConfigError(flagOf([...issue.path, key]), valueAt(input, [...issue.path, key]), issue.message);
  }
  return new ConfigError(flagOf(issue.path), valueAt(input, issue.path), issue.message);
}

/**
 * A union's one branch of the value's own type (`listenTls: { maxVersion: 'TLSv1.1' }` is no boolean, but
 * is the object branch's type) failed deeper down: its first issue names the key (`listenTls.maxVersion`)
 * and what that key takes, where the union's message named the whole option. Undefined when no branch,
 * or more than one (`compensationUs`' two objects), took the value's type.
 */
function matchedBranchIssue(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue | undefined {
  const typed = issue.errors.filter((branch) => !branch.some((i) => i.code === 'invalid_type' && i.path.length === 0));
  const first = typed.length === 1 ? typed[0]![0] : undefined;
  return first !== undefined && first.path.length > 0 ? first : undefined;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const p of path) {
    if (typeof v !== 'object' || v === null || !Object.prototype.hasOwnProperty.call(v, p)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * How often a periodic refresh reads the upstreams' state (topologyRefreshMs, sentinelRefreshMs),
 * in ms. At least 10: shorter would read back to back, a load no failover needs. At most Node's
 * timer limit: above it the timer fires every millisecond, the very load the minimum keeps off.
 */
export function refreshPeriodMs(description: string): z.ZodOptional<z.ZodNumber> {
  return z
    .number({ error: 'milliseconds, at least 10' })
    .min(10, { error: 'milliseconds, at least 10' })
    .max(MAX_TIMER_MS, { error: `milliseconds, at most ${MAX_TIMER_MS} (Node's timer limit)` })
    .describe(description)
    .optional();
}

/**
 * The one integer check: a whole number (a safe integer) from `min` to `max`. Its message says
 * the range, so what is said is what is accepted; `zeroMeans` words a 0 that switches a thing off.
 */
export function wholeNumber(min: number, max: number = Number.MAX_SAFE_INTEGER, zeroMeans?: string): z.ZodInt {
  const range = max !== Number.MAX_SAFE_INTEGER ? `from ${min} to ${max}` : min === 0 ? '(0 or more)' : `of at least ${min}`;
  return z.int({ error: `a whole number ${range}${zeroMeans ? `, 0 for ${zeroMeans}` : ''}` }).min(min).max(max);
}

/**
 * A building block's option that is a function (a hook, a sampler): zod checks only that it is one,
 * where a wrong one failed later, at its first call, as a TypeError naming nothing.
 */
export function hook<F extends (...args: never[]) => unknown>(accepts: string): z.ZodCustom<F, F> {
  return z.custom<F>((v) => typeof v === 'function', { error: accepts });
}

/** An object whose `methods` are all functions (a Clock, a Scheduler), as `hook` checks one function. */
export function withMethods<T extends object>(methods: readonly string[], accepts: string): z.ZodCustom<T, T> {
  return z.custom<T>((v) => isJsonObject(v) && methods.every((m) => typeof v[m] === 'function'), { error: accepts });
}

/** A length of time in nanoseconds, 0 or more (a building block's window, margin or linger). */
export const NANOSECONDS = z.number({ error: 'nanoseconds, 0 or more' }).min(0, { error: 'nanoseconds, 0 or more' });
