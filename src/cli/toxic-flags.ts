import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { parseJsonText } from '../validation/json-text.js';
import { TOXIC_TYPES } from '../toxics/registry.js';
import { parseToxicSpec } from '../toxics/spec.js';
import type { ToxicSpec } from '../toxics/types.js';
import { cliAttributes } from '../toxiproxy-api/cli-values.js';
import { isJsonObject } from '../validation/schema.js';

export interface ToxicFlagValues {
  toxic: string[];
  /** The --toxics file (commander's false after a later --no-toxics is unset by applyNegations). */
  toxics?: string;
  /** Set by --no-toxics wherever it stands: the config file's toxics are dropped even when a --toxics follows. */
  noToxics?: boolean;
}

/** --no-toxics's help, and the rule docs/cli.md states: by position, as between --record f and --no-record. */
const NO_TOXICS_HELP = 'drop a --config file\'s "toxics" (wherever it stands) and each --toxics or --toxic before it; ' +
  'those after it add, in place of the file\'s';

export function addToxicFlags(cmd: Command): Command {
  cmd
    .option(
      '--toxic <json>',
      'add a toxic, as toxiproxy\'s API takes it: {"type","name?","stream?","toxicity?","attributes"}; repeatable, applied in order. ' +
        `Types: ${[...TOXIC_TYPES.keys()].join(', ')}`,
      (v: string, prev: string[]) => [...prev, v],
      [],
    )
    .option('--toxics <file>', 'add the toxics in this JSON file (an array of toxic objects), before any --toxic')
    .option('--no-toxics', NO_TOXICS_HELP);
  // Commander's own handler (registered first, so run first) sets `toxics` to false, which a later
  // --toxics overwrites: the mark keeps the file's list dropped then, and the --toxic list restarts
  // so that only those after it add.
  cmd.on('option:no-toxics', () => {
    cmd.setOptionValueWithSource('toxic', [], 'cli');
    cmd.setOptionValueWithSource('noToxics', true, 'cli');
  });
  return cmd;
}

/**
 * The toxics from --toxics FILE then each --toxic, validated; a ConfigError names the flag and the field.
 * Their names must differ from each other and from `before`'s (a --config file's toxics, ahead of them).
 */
export function toxicsFromFlags(f: ToxicFlagValues, before: readonly ToxicSpec[] = []): ToxicSpec[] {
  const out: ToxicSpec[] = [];
  /** Where each of `out` came from, for a clash of names: the --toxics file's entry, or --toxic. */
  const sources: string[] = [];
  if (f.toxics !== undefined) {
    let list: unknown;
    try {
      list = parseJsonText(readFileSync(f.toxics, 'utf8'));
    } catch (err) {
      throw new ConfigError('--toxics', f.toxics, `a readable JSON file with an array of toxics (${(err as Error).message})`);
    }
    if (!Array.isArray(list)) throw new ConfigError('--toxics', f.toxics, 'a JSON array of toxic objects');
    list.forEach((t, i) => {
      out.push(checked(t, `--toxics ${f.toxics} [${i}]`));
      sources.push(`--toxics ${f.toxics} [${i}] name`);
    });
  }
  for (const text of f.toxic ?? []) {
    let t: unknown;
    try {
      t = JSON.parse(text);
    } catch {
      throw new ConfigError('--toxic', text, 'a JSON object like {"type":"latency","attributes":{"latency":0.1}}');
    }
    out.push(checked(t, '--toxic'));
    sources.push('--toxic');
  }
  // A clash is named by the later toxic's own source: it named --toxic for a --toxics file's toxic too.
  checkDistinctToxicNames([...before, ...out], (i) => sources[i - before.length] ?? '--toxic');
  return out;
}

/**
 * Toxic names must differ, defaults (TYPE_STREAM) included, as startProxy requires: checked where
 * the toxics are read, so the error names the flag or key (`where(i)` of the i-th toxic) and
 * --print-config refuses what the start would.
 */
export function checkDistinctToxicNames(toxics: readonly { name: string }[], where: (i: number) => string): void {
  const names = new Set<string>();
  toxics.forEach((t, i) => {
    if (names.has(t.name)) throw new ConfigError(where(i), t.name, 'toxics with distinct names (give "name" to a second toxic of the same type and stream)');
    names.add(t.name);
  });
}

function checked(t: unknown, flag: string): ToxicSpec {
  try {
    // Refused, not ignored, as a config file's: a misspelled attribute would run with its default.
    return parseToxicSpec(withCliForms(t), 'refuse');
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${flag} ${err.flag}`, err.value, err.accepts);
    throw err;
  }
}

/**
 * A toxic's attributes in the forms toxiproxy-cli's users type (`-a commands=GET,MGET -a close=true`),
 * as `redis-rtt server` takes them (cli-values.ts): `"commands": "GET,MGET"` is the list ["GET","MGET"],
 * `"close": "true"` the flag. A value no form fits, or a key the type lacks, is left for the schema to refuse.
 */
function withCliForms(t: unknown): unknown {
  if (!isJsonObject(t) || typeof t.type !== 'string' || !isJsonObject(t.attributes)) return t;
  return { ...t, attributes: cliAttributes(t.type, t.attributes) };
}
