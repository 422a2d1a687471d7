/**
 * `redis-rtt proxy --config FILE`: a JSON file of startProxy()'s options (PROXY_OPTIONS, so every
 * option added there is a config key too) plus `record` and `statsJson`, the CLI's own. How it meets the flags:
 *  - a single-valued flag given on the command line (or by its environment variable) wins over
 *    the file's key; a flag left at its default does not;
 *  - repeatable flags (--toxic, --node-link, --allow-host) append after the file's entries;
 *  - the link merges key by key (`--rtt 5ms` over the file's `link.jitterUs`), except that a
 *    --preset on the command line replaces the file's whole link; upstreamTls and listenTls merge
 *    with the TLS flags key by key too (`--upstream-ca` over the file's `"upstreamTls": true`), and
 *    `--no-upstream-tls` / `--no-listen-tls` turn the file's side off;
 *  - `--no-control`, `--no-record`, `--no-stats-json`, `--no-toxics`, `--no-rtt-wave`, `--no-link-schedule` and
 *    `--no-rtt-series` drop the file's key (config-negations.ts).
 * Keys with a flag are folded into the flags (one path validates both); the others go to
 * startProxy as they are, under whatever the flags set.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { parseNodeLink } from '../cluster/node-link.js';
import { applyNegations, givenBy } from './config-negations.js';
import { checkConfigTls, mergeConfigTls } from './config-tls.js';
import { checkDistinctToxicNames } from './toxic-flags.js';
import { parseToxicSpec } from '../toxics/spec.js';
import { parseEndpoint, parseRedisEndpoint } from '../endpoint.js';
import { ConfigError } from '../errors.js';
import { parseAllowHost } from '../http/guard.js';
import { parseLinkSpec } from '../link/link-spec.js';
import type { LinkUpdate } from '../link/types.js';
import { parseRttSeries } from '../link/rtt-series.js';
import { parseLinkSchedule } from '../link/schedule.js';
import { parseRttWave } from '../link/wave.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, PROXY_OPTIONS } from '../proxy/options-schema.js';
import { DEFAULT_RECORDER } from '../record/recorder.js';
import { SENTINEL_OPTIONS } from '../sentinel/options.js';
import { KEY_MODES } from '../record/trace-format.js';
import type { RecordFlagValues } from '../record/cli-options.js';
import { parseBytes } from '../units.js';
import { isJsonObject, keyPath, parseWith, wholeNumber } from '../validation/schema.js';
import { parseJsonText } from '../validation/json-text.js';

const RECORD_CONFIG = z
  .strictObject(
    {
      file: z.string({ error: 'a file path' }).min(1).describe('The trace file (`--record`).'),
      maxBytes: wholeNumber(4000).describe(`Stop recording at this trace size, bytes (\`--record-max-bytes\`). Default ${DEFAULT_RECORDER.maxBytes}.`).optional(),
      keys: z.enum(KEY_MODES as [string, ...string[]], { error: KEY_MODES.join(' | ') }).describe('`--record-keys`. Default none.').optional(),
      overwrite: z.boolean({ error: 'true or false' }).describe('Replace an existing trace file (`--record-overwrite`).').optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? 'a key of record: file, maxBytes, keys, overwrite' : 'an object like {"file": "trace.jsonl"}',
    },
  )
  .describe('Record a trace of every command (docs/record-analyze.md).');

/**
 * The timeout keys go to the start as their flags' text (`${ms}ms`, SINGLE below), and a duration flag
 * takes at most an hour: the file's bound is the flag's, said in the schema an editor reads (startProxy()
 * takes up to Node's timer limit).
 */
const HOUR_MS = 3_600_000;
const CONNECT_TIMEOUT_ACCEPTS = `milliseconds, from 1 to ${HOUR_MS} (an hour, as --connect-timeout)`;
const FILE_TIMEOUTS = {
  connectTimeoutMs: z
    .number({ error: CONNECT_TIMEOUT_ACCEPTS })
    .min(1, { error: CONNECT_TIMEOUT_ACCEPTS })
    .max(HOUR_MS, { error: CONNECT_TIMEOUT_ACCEPTS })
    .describe(PROXY_OPTIONS.shape.connectTimeoutMs.unwrap().description ?? '')
    .default(DEFAULT_CONNECT_TIMEOUT_MS),
  idleTimeoutMs: wholeNumber(0, HOUR_MS, 'off')
    .describe(PROXY_OPTIONS.shape.idleTimeoutMs.unwrap().description ?? '')
    .default(0),
};

/**
 * What a config file holds: the proxy's data options (upstream optional: --upstream may give it),
 * sentinel mode's in place of upstream, and `record`.
 */
export const PROXY_CONFIG = PROXY_OPTIONS.extend({
  $schema: z.string({ error: 'a string (the JSON Schema, for editors)' }).optional(),
  upstream: PROXY_OPTIONS.shape.upstream.optional(),
  ...FILE_TIMEOUTS,
  sentinels: SENTINEL_OPTIONS.sentinels.optional(),
  sentinelMaster: SENTINEL_OPTIONS.sentinelMaster.optional(),
  sentinelUser: SENTINEL_OPTIONS.sentinelUser,
  sentinelPassword: SENTINEL_OPTIONS.sentinelPassword,
  sentinelRefreshMs: SENTINEL_OPTIONS.sentinelRefreshMs,
  record: RECORD_CONFIG.optional(),
  statsJson: z
    .string({ error: 'a file path' })
    .min(1, { error: 'a file path' })
    .describe('Write the exit summary as JSON to this file when the proxy stops (`--stats-json`).')
    .optional(),
}).strict();

export type ProxyConfig = Record<string, unknown>;

/** Reads and validates a config file; a ConfigError names the file and the key path (`link.rttUs`). */
export async function readProxyConfig(path: string): Promise<ProxyConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError('--config', path, `a readable JSON file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (err) {
    throw new ConfigError('--config', path, `a JSON file: ${(err as Error).message}`);
  }
  // The file's own words: startProxy()'s ('with at least { upstream }') would be untrue of a file, which
  // may leave upstream to --upstream or name sentinels instead; and the file has more keys than startProxy().
  if (!isJsonObject(json)) throw new ConfigError(`${path}: (the file)`, json, 'a JSON object of proxy options (docs/proxy-options.schema.json)');
  const unknown = Object.keys(json).find((k) => !(k in PROXY_CONFIG.shape));
  if (unknown !== undefined) {
    throw new ConfigError(`${path}: ${unknown}`, json[unknown], "a key of startProxy()'s options, sentinel mode's, record or statsJson (docs/proxy-options.schema.json)");
  }
  parseWith(PROXY_CONFIG, json, (p) => `${path}: ${keyPath()(p) || '(the file)'}`);
  const { $schema: _schema, ...config } = json as ProxyConfig;
  // What the schema takes as text or any JSON is read now, so an error names the file's key (and
  // --print-config refuses what the start would).
  const at = (key: string): string => `${path}: ${key}`;
  // The addresses are read the way their flags are (proxy.ts), by the same parsers.
  if (typeof config.upstream === 'string') parseRedisEndpoint(config.upstream, at('upstream'));
  if (typeof config.listen === 'string') parseEndpoint(config.listen, at('listen'));
  if (typeof config.control === 'string') parseEndpoint(config.control, at('control'));
  // The links and hosts as their flags read them (cluster-settings.ts, guard.ts). A start reads them
  // only where they apply (zones, cluster or Sentinel mode, a TCP --control), so a typo would
  // otherwise pass until the file met that mode.
  for (const key of ['sameZoneLink', 'crossZoneLink'] as const) {
    if (typeof config[key] === 'string') parseLinkSpec(config[key], at(key));
  }
  (config.nodeLinks as string[] | undefined)?.forEach((rule, i) => parseNodeLink(rule, at(`nodeLinks[${i}]`)));
  (config.allowHosts as string[] | undefined)?.forEach((host, i) => parseAllowHost(host, at(`allowHosts[${i}]`)));
  if (typeof config.rttWave === 'string') parseRttWave(config.rttWave, at('rttWave'));
  if (config.linkSchedule !== undefined) parseLinkSchedule(config.linkSchedule, at('linkSchedule'));
  if (typeof config.rttSeries === 'string') readRttSeriesKey(config.rttSeries, at('rttSeries'));
  if (Array.isArray(config.toxics)) checkDistinctToxicNames(config.toxics.map((t) => parseToxicSpec(t, 'refuse')), (i) => at(`toxics[${i}].name`));
  checkConfigTls(config, at);
  // --print-config's output saved as a config file would otherwise set the secret to that text.
  for (const secret of SECRET_KEYS) {
    if (config[secret] === REDACTED) throw new ConfigError(at(secret), REDACTED, `the secret itself (--print-config writes ${REDACTED} in its place)`);
  }
  return config;
}

/**
 * The rttSeries key holds the series itself, where --rtt-series takes a file: a file name there is
 * one line and no row, so its error says what the key takes and shows the name as written.
 */
function readRttSeriesKey(text: string, name: string): void {
  try {
    parseRttSeries(text, name);
  } catch (err) {
    if (!(err instanceof ConfigError) || text.includes('\n')) throw err;
    throw new ConfigError(name, text, `${err.accepts} (the text of the series, not a file name: --rtt-series FILE reads a file)`);
  }
}

/** Option keys that have a single-valued flag: the flag's attribute and how the file's value reads as flag text. */
const SINGLE: Record<string, [attr: string, asFlag: (v: never) => string | boolean]> = {
  upstream: ['upstream', String],
  listen: ['listen', String],
  control: ['control', String],
  controlToken: ['controlToken', String],
  handshake: ['handshake', Boolean],
  tap: ['tap', Boolean],
  rttSeriesOnce: ['rttSeriesOnce', Boolean],
  seed: ['seed', String],
  highWaterBytes: ['highWater', String],
  connectTimeoutMs: ['connectTimeout', (ms: number) => `${ms}ms`],
  idleTimeoutMs: ['idleTimeout', (ms: number) => `${ms}ms`],
  maxConnections: ['maxConnections', String],
  warmUpConnections: ['warmUp', String],
  maxPendingPerConnection: ['maxPending', String],
  maxPendingTotal: ['maxPendingTotal', String],
  cluster: ['cluster', String],
  announceHost: ['announceHost', String],
  listenPorts: ['listenPorts', String],
  zones: ['zones', String],
  clientZones: ['clientZones', String],
  sameZoneLink: ['sameZoneLink', String],
  crossZoneLink: ['crossZoneLink', String],
  upstreamUser: ['upstreamUser', String],
  sentinelMaster: ['sentinelMaster', String],
  sentinelUser: ['sentinelUser', String],
  statsJson: ['statsJson', String],
};
/** Repeatable flags: the file's entries first. */
const REPEATABLE: Record<string, string> = { allowHosts: 'allowHost', nodeLinks: 'nodeLink', sentinels: 'sentinel' };
const LINK_FLAGS = ['preset', 'rtt', 'up', 'down', 'jitter', 'jitterDist', 'bandwidth', 'loss', 'lossUp', 'lossDown', 'lossBurst', 'mss'];

/** Flags merged with a config file, and the file's options that have no flag (link, toxics, TLS objects, ...). */
export function mergeProxyConfig<F extends object>(flags: F, cmd: Pick<Command, 'getOptionValueSource'>, config: ProxyConfig): { flags: F; file: ProxyConfig } {
  const given = givenBy(cmd);
  const file: ProxyConfig = { ...config };
  // A --no-X first: the keys it drops are then not in the file for the merge below to take.
  const out = applyNegations(flags, file, given) as Record<string, unknown>;
  // Which flag values are the file's: a check that refuses one names the key the user wrote.
  const fileKeys: Record<string, string> = {};
  for (const [key, [attr, asFlag]] of Object.entries(SINGLE)) {
    if (!(key in file)) continue;
    if (!given(attr)) {
      out[attr] = asFlag(file[key] as never);
      fileKeys[attr] = key;
    }
    delete file[key];
  }
  for (const [key, attr] of Object.entries(REPEATABLE)) {
    if (!(key in file)) continue;
    // Only the file's entries: a check that refuses the list names the key.
    if (((out[attr] as string[] | undefined) ?? []).length === 0) fileKeys[attr] = key;
    out[attr] = [...(file[key] as string[]), ...((out[attr] as string[] | undefined) ?? [])];
    delete file[key];
  }
  if ('link' in file) {
    // Flags left at their defaults (--jitter 0, --jitter-dist uniform) must not undo the file's link.
    for (const attr of LINK_FLAGS) if (!given(attr)) out[attr] = undefined;
    if (given('preset')) delete file.link;
  }
  mergeConfigTls(out, file, given);
  // A side no TLS flag touched stays in the file: a start that refuses it names the key (file-key-errors.ts).
  for (const side of ['upstreamTls', 'listenTls']) if (file[side] !== undefined && file[side] !== false) fileKeys[side] = side;
  if (given('compensate')) delete file.compensationUs;
  if ('record' in file) {
    const r = file.record as { file: string; maxBytes?: number; keys?: string; overwrite?: boolean };
    const maxBytes = r.maxBytes === undefined ? undefined : String(r.maxBytes);
    const rec: RecordFlagValues = { record: r.file, recordMaxBytes: maxBytes, recordKeys: r.keys, recordOverwrite: r.overwrite };
    const keyOf: Record<string, string> = { record: 'file', recordMaxBytes: 'maxBytes', recordKeys: 'keys', recordOverwrite: 'overwrite' };
    // The file's overwrite lets it replace its own trace: a --record naming another file does not inherit that.
    const otherFile = given('record') && resolve(String(out.record)) !== resolve(r.file);
    for (const [attr, v] of Object.entries(rec)) {
      if (v === undefined || given(attr) || (otherFile && attr === 'recordOverwrite')) continue;
      out[attr] = v;
      fileKeys[attr] = `record.${keyOf[attr]}`;
    }
    delete file.record;
  }
  if (Object.keys(fileKeys).length > 0) out.fileKeys = fileKeys;
  return { flags: out as F, file };
}

/** Link keys a flag sets together (`--rtt` both delays, `--loss` both losses), and the file's keys it replaces. */
const LINK_FLAG_COVERS: Record<string, readonly string[]> = { rttUs: ['upUs', 'downUs'], loss: ['lossUp', 'lossDown'] };

/**
 * The file's link under the link flags, key by key. A flag that sets several keys replaces the
 * file's value of each: the file's upUs/downUs would otherwise win over `--rtt` (the explicit
 * one-way keys are applied after rttUs), and its lossUp/lossDown over `--loss`.
 */
export function mergeFileLink(fileLink: LinkUpdate | undefined, flagLink: LinkUpdate): LinkUpdate {
  const fromFile: Record<string, unknown> = { ...fileLink };
  for (const [key, covered] of Object.entries(LINK_FLAG_COVERS)) {
    if (key in flagLink) for (const k of covered) delete fromFile[k];
  }
  return { ...fromFile, ...flagLink };
}

/** The options --print-config hides, and what it writes in their place. */
const SECRET_KEYS = ['controlToken', 'upstreamPassword', 'sentinelPassword'] as const;
const REDACTED = '(redacted)';

/** `--print-config`: the effective options as a config file would hold them, secrets redacted. */
export function renderEffectiveConfig(options: Record<string, unknown>, record: RecordFlagValues & { statsJson?: string }): string {
  const data = JSON.parse(JSON.stringify(options)) as Record<string, unknown>; // drops the hooks (functions)
  for (const secret of SECRET_KEYS) if (data[secret] !== undefined) data[secret] = REDACTED;
  // A toxic's `applied` (what its stage runs with, when clamped) is read-only: the toxic is what was sent.
  if (Array.isArray(data.toxics)) data.toxics = data.toxics.map(({ applied: _applied, ...toxic }: Record<string, unknown>) => toxic);
  if (record.record !== undefined) {
    data.record = {
      file: record.record,
      ...(record.recordMaxBytes !== undefined ? { maxBytes: parseBytes(record.recordMaxBytes, '--record-max-bytes') } : {}),
      ...(record.recordKeys !== undefined ? { keys: record.recordKeys } : {}),
      ...(record.recordOverwrite ? { overwrite: true } : {}),
    };
  }
  // Not a startProxy() option: the CLI writes it when the proxy stops.
  if (record.statsJson !== undefined) data.statsJson = record.statsJson;
  return `${JSON.stringify(data, null, 2)}\n`;
}
