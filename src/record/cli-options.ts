/**
 * `redis-rtt proxy --record FILE [--record-max-bytes N] [--record-keys none|hashed]`: the flags, and the
 * ProxyOptions hooks they turn into. The proxy command calls addRecordFlags(cmd) while declaring its
 * flags and recordOptionsFromFlags(...) before startProxy; it spreads the result into the options and
 * awaits close() on shutdown.
 */
import { accessSync, constants, lstatSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { applyLinkUpdate, defaultLinkSettings } from '../link/settings.js';
import type { LinkSettings, LinkUpdate } from '../link/types.js';
import type { TapEvent } from '../stats/types.js';
import { parseBytes } from '../units.js';
import { createRecorder, DEFAULT_RECORDER, type RecordingSummary } from './recorder.js';
import { KEY_MODES, type KeyMode, type TraceLink } from './trace-format.js';

export interface RecordFlagValues {
  record?: string;
  recordMaxBytes?: string;
  recordKeys?: string;
  recordOverwrite?: boolean;
  /** The proxy's --tap / --no-tap (a config file's `tap` merged in): the trace is what the tap parses. */
  tap?: boolean;
  /** --rtt-wave and --rtt-series move the link per chunk, with no link line: the header says so. */
  rttWave?: string;
  rttSeries?: string;
}

export interface RecordContext {
  /** The proxy's initial link: settings or an update (preset, rttUs, ...) applied to no delay. */
  link: LinkUpdate & { preset?: string };
  /** Whether the proxy charges one RTT for connection set-up. */
  handshake: boolean;
  log?: (line: string) => void;
  /**
   * What else moves the link between its link lines, named in the header after --rtt-wave and --rtt-series:
   * the config file's rttWave and rttSeries with no flag of their own given, a schedule that ramps
   * (--link-schedule, or the file's linkSchedule).
   */
  moreLinkMoves?: readonly string[];
}

/** Spread into ProxyOptions (onEvent, keyHash, argSizes); then close() on shutdown. */
export interface RecordHooks {
  onEvent: (e: TapEvent) => void;
  keyHash?: (key: Buffer) => string;
  argSizes: true;
  /** Call when the link changes (PUT /link), so the analysis knows what each round trip paid. */
  linkChanged: (link: LinkUpdate & { preset?: string }) => void;
  /** Cluster mode: a node's link (at start and on every change), so each node's connections are priced at theirs. */
  nodeLinkChanged: (node: { upstream: string; listen: string }, link: LinkSettings) => void;
  /** Flushes and closes the trace; prints nothing. */
  close: () => Promise<RecordingSummary>;
  /**
   * Closes the trace and removes it: the proxy did not start, so it holds a header and nothing
   * else, and left in place it would refuse the same command run again (EEXIST).
   */
  discard: () => Promise<void>;
  /** The trace's path. */
  path: string;
}

export const RECORD_FLAG_HELP = {
  record: 'record a trace of every command (names, sizes, times; never keys, values or credentials) to this file; read it with `redis-rtt analyze FILE`',
  recordMaxBytes: 'stop recording (never the traffic) when the trace reaches this size: bytes, or 64kb, 64mb, 1gb',
  recordKeys: "none: no key material in the trace; hashed: a keyed hash of each command's first key, so repeated keys can be recognised but not read",
};

/** --record-max-bytes when not given (commander fills it in, so it is how "not given" reads). */
const RECORD_MAX_BYTES_DEFAULT = `${DEFAULT_RECORDER.maxBytes / 1e6}mb`;

/** Declares the four flags on a command. */
export function addRecordFlags(cmd: Command): Command {
  return cmd
    .option('--record <file>', RECORD_FLAG_HELP.record)
    .option('--no-record', 'record no trace (the default; over a --config file\'s "record", all its fields dropped with it)')
    .option('--record-max-bytes <size>', RECORD_FLAG_HELP.recordMaxBytes, RECORD_MAX_BYTES_DEFAULT)
    .option('--record-keys <mode>', RECORD_FLAG_HELP.recordKeys, 'none')
    .option('--record-overwrite', 'replace an existing --record file (a symlink is refused all the same)');
}

/**
 * The flags' values, checked as a start would check them (--print-config too, which opens no trace):
 * without --record the others must be at their defaults or absent (exit 2 naming the one that is
 * not, rather than running without the trace it implies).
 */
export function checkRecordFlags(flags: RecordFlagValues): { maxBytes: number; keys: KeyMode } {
  const maxBytes = flags.recordMaxBytes === undefined ? DEFAULT_RECORDER.maxBytes : parseBytes(flags.recordMaxBytes, '--record-max-bytes');
  if (maxBytes < 4000) throw new ConfigError('--record-max-bytes', flags.recordMaxBytes, 'a size of at least 4kb');
  const keys = (flags.recordKeys ?? 'none') as KeyMode;
  if (!KEY_MODES.includes(keys)) throw new ConfigError('--record-keys', flags.recordKeys, KEY_MODES.join(' | '));
  if (flags.record === undefined) {
    // A user who asks for hashed keys or a size bound believes a trace is being written: say it is not.
    if (keys !== 'none') throw new ConfigError('--record-keys', flags.recordKeys, 'to be given with --record (no trace is written without it)');
    if (flags.recordMaxBytes !== undefined && flags.recordMaxBytes !== RECORD_MAX_BYTES_DEFAULT) {
      throw new ConfigError('--record-max-bytes', flags.recordMaxBytes, 'to be given with --record (no trace is written without it)');
    }
    if (flags.recordOverwrite === true) throw new ConfigError('--record-overwrite', true, 'to be given with --record (no trace is written without it)');
  } else if (flags.record.trim() === '') {
    throw new ConfigError('--record', flags.record, 'a file path');
  } else if (flags.tap === false) {
    // The trace is what the tap parses: without it the file would hold its header and no command.
    throw new ConfigError('--record', flags.record, 'a proxy that parses RESP: --no-tap (or "tap": false) records no command');
  } else {
    checkTracePath(flags.record, flags.recordOverwrite === true);
  }
  return { maxBytes, keys };
}

/**
 * What opening the trace would refuse, found without creating it, so --print-config exits 2 where
 * the start would (it printed and exited 0 for a trace in a missing folder or one that exists):
 * a symlink, an existing file without --record-overwrite, a folder, or a folder that is not there
 * or cannot be written. The start's open (recorder.ts) still decides, without a race.
 */
function checkTracePath(path: string, overwrite: boolean): void {
  const found = lstatSync(path, { throwIfNoEntry: false });
  let code: string | undefined;
  if (found?.isSymbolicLink()) code = 'ELOOP';
  else if (found !== undefined && !overwrite) code = 'EEXIST';
  else if (found?.isDirectory()) code = 'EISDIR';
  else {
    try {
      accessSync(found === undefined ? dirname(path) : path, constants.W_OK);
    } catch (err) {
      code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    }
  }
  if (code !== undefined) throw traceOpenError(path, code);
}

/** The ConfigError for a trace that cannot be opened, by the code its open gives. */
function traceOpenError(path: string, code: string): ConfigError {
  if (code === 'EEXIST') return new ConfigError('--record', path, 'a path that does not exist yet (or add --record-overwrite)');
  if (code === 'ELOOP') return new ConfigError('--record', path, 'a path that is not a symlink');
  return new ConfigError('--record', path, `a file that can be written (${code})`);
}

/**
 * Validates the flags (checkRecordFlags) and opens the trace (a bad path fails here, before the proxy
 * starts). Undefined when --record is absent.
 */
export function recordOptionsFromFlags(flags: RecordFlagValues, ctx: RecordContext): RecordHooks | undefined {
  const { maxBytes, keys } = checkRecordFlags(flags);
  if (flags.record === undefined) return undefined;
  const toTraceLink = (update: LinkUpdate & { preset?: string }): TraceLink => ({
    ...applyLinkUpdate(defaultLinkSettings(), update),
    handshake: ctx.handshake,
  });
  const linkMoves = [flags.rttWave !== undefined ? '--rtt-wave' : '', flags.rttSeries !== undefined ? '--rtt-series' : ''].filter((f) => f !== '');
  linkMoves.push(...(ctx.moreLinkMoves ?? []));
  let recorder;
  try {
    const overwrite = flags.recordOverwrite === true;
    recorder = createRecorder({ path: flags.record, maxBytes, keys, link: toTraceLink(ctx.link), linkMoves, log: ctx.log, overwrite });
  } catch (err) {
    throw traceOpenError(flags.record, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
  const path = flags.record;
  const hooks: RecordHooks = {
    onEvent: (e) => recorder.onEvent(e),
    argSizes: true,
    linkChanged: (update) => recorder.linkChanged(toTraceLink(update)),
    nodeLinkChanged: (node, link) => recorder.nodeLinkChanged(node, { ...link, handshake: ctx.handshake }),
    close: () => recorder.close(),
    discard: async () => {
      await recorder.close();
      await rm(path, { force: true });
    },
    path: flags.record,
  };
  if (recorder.keyHash) hooks.keyHash = recorder.keyHash;
  return hooks;
}
