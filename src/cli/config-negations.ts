/**
 * `redis-rtt proxy`'s `--no-X` flags for the config keys a user could otherwise turn off only by
 * editing a shared file (`--no-control`, `--no-record`, `--no-stats-json`, `--no-toxics`, `--no-rtt-wave`,
 * `--no-link-schedule`, `--no-rtt-series`), as --no-upstream-tls turns off a file's upstreamTls.
 * Commander sets the attribute to false; a `--no-X` declared after `--X <v>` gives it no default, so a
 * user who gives neither sees no change. Between `--X v` and `--no-X` the last given wins, as between
 * --tap and --no-tap. --toxics adds to the file's list instead of replacing it, so --no-toxics drops
 * the file's wherever it stands (its `mark`, toxic-flags.ts), and the flags after it add.
 */
import { ConfigError } from '../errors.js';

interface Negation {
  /** The config file's keys it drops: the key and those that serve only it. */
  keys: readonly string[];
  /** Flags that serve only the key, refused beside the negation (shown as the value, secrets hidden). */
  dependents?: Readonly<Record<string, [flag: string, shown: (v: unknown) => unknown]>>;
  /** What a refused dependent is told. */
  accepts?: string;
  /**
   * The attribute the negation sets wherever it stands, for a key its flag adds to: a `--X v` after
   * `--no-X` then keeps its value and the file's key is still dropped.
   */
  mark?: string;
}

/**
 * By the flag's attribute. Dependents checked elsewhere are not repeated: --record-keys, --record-max-bytes
 * and --record-overwrite are refused without a trace by checkRecordFlags, --rtt-series-once without a
 * series by the start. A --toxics or --toxic after --no-toxics adds its own: the way to replace the file's list.
 */
const NEGATIONS: Readonly<Record<string, Negation>> = {
  control: {
    keys: ['control', 'controlToken', 'allowHosts'],
    dependents: { controlToken: ['--control-token', () => '(redacted)'], allowHost: ['--allow-host', (v) => (v as string[])[0]] },
    accepts: 'to be used with --control, not --no-control (no control endpoint to guard)',
  },
  record: { keys: ['record'] },
  statsJson: { keys: ['statsJson'] },
  toxics: { keys: ['toxics'], mark: 'noToxics' },
  rttWave: { keys: ['rttWave'] },
  linkSchedule: { keys: ['linkSchedule'] },
  rttSeries: { keys: ['rttSeries', 'rttSeriesOnce'] },
};

/** Whether a flag was given (on the command line or by its environment variable), not left at its default. */
export function givenBy(cmd: { getOptionValueSource(attr: string): string | undefined }): (attr: string) => boolean {
  return (attr) => ['cli', 'env'].includes(cmd.getOptionValueSource(attr) ?? '');
}

/**
 * Each `--no-X` given: the file's keys it drops deleted from `file`, its attribute left unset (as if
 * neither the flag nor the key were given), a flag that serves only it refused as its flag is.
 */
export function applyNegations<F extends object>(flags: F, file: Record<string, unknown>, given: (attr: string) => boolean): F {
  const out = { ...flags } as Record<string, unknown>;
  for (const [attr, { keys, dependents = {}, accepts = '', mark }] of Object.entries(NEGATIONS)) {
    if (out[attr] !== false && (mark === undefined || out[mark] !== true)) continue;
    for (const key of keys) delete file[key];
    if (out[attr] === false) out[attr] = undefined;
    for (const [dep, [flag, shown]] of Object.entries(dependents)) {
      if (given(dep)) throw new ConfigError(flag, shown(out[dep]), accepts);
    }
  }
  return out as F;
}
