import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { parseCompensationTable, type Compensation } from '../link/compensation.js';
import { parseDurationUs } from '../units.js';
import { isJsonObject } from '../validation/schema.js';
import type { BenchOptions } from '../workload/options.js';

export const COMPENSATE_HELP =
  "what to take off each one-way delay so a client sees direct + configured: auto (the proxy's hop, measured at start), " +
  'off (or 0), a duration (bare number: ms), or FILE: a `redis-rtt calibrate --json FILE` result, whose table also pays for the wake-ups that grow with the delay';

const ACCEPTS = 'auto, off (or 0), a duration like 20us (a bare number is ms), or a calibrate --json file';

/** `--compensate auto|off|0|20us|calibration.json`: undefined means auto; off is { up: 0, down: 0 }. */
export function parseCompensateFlag(text: string, flag = '--compensate'): Compensation | undefined {
  if (text === 'auto') return undefined;
  if (text.trim() === 'off') return { up: 0, down: 0 };
  if (/^[0-9.]+\s*[a-z]*$/i.test(text.trim())) {
    try {
      const us = parseDurationUs(text, flag);
      return { up: us, down: us };
    } catch {
      throw new ConfigError(flag, text, ACCEPTS);
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(text, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError(flag, text, `${ACCEPTS} (${why})`);
  }
  const missing = missingTable(data);
  if (missing !== undefined) throw new ConfigError(flag, text, `a calibrate --json result with a compensationTable; ${missing}`);
  return parseCompensationTable(data, text);
}

/**
 * Why a `calibrate --json` report holds no compensationTable, and what to run instead; undefined
 * when it has one (or is not such a report). A run cut short, or one given a compensation, saves
 * none, and the refusal only said a table was expected: the user had no way to know what to redo.
 */
export function missingTable(data: unknown): string | undefined {
  if (!isJsonObject(data) || data.kind !== 'calibrate' || data.compensationTable !== undefined) return undefined;
  const rerun = 'run `redis-rtt calibrate --json FILE` (with --compensate auto, the default) to its end, then pass FILE';
  if (data.interrupted === true) {
    const unchecked = data.uncheckedCompensation === undefined ? '' : ' (its uncheckedCompensation was never measured with)';
    return `this run was interrupted (Ctrl-C) before a table was derived and measured with it, so it saved none${unchecked}: ${rerun}`;
  }
  const rows = Array.isArray(data.rows) ? (data.rows as { configuredRttUs?: unknown }[]) : [];
  if (!rows.some((r) => typeof r.configuredRttUs === 'number' && r.configuredRttUs > 0)) {
    return `this run measured no RTT above 0 (--rtts), so it derived no table: ${rerun}, with --rtts holding the RTTs you will run`;
  }
  return `this run measured one pass with the compensation it was given (--compensate off, a duration or a file), so it derived no table: ${rerun}`;
}

/** The bench's `--compensate`, as runBench and runOpenLoopBench take it: 'off', 'auto', us both ways, or a table. */
export function benchCompensation(text: string, flag = '--compensate'): NonNullable<BenchOptions['compensation']> {
  if (text === 'off' || text === 'auto') return text;
  const c = parseCompensateFlag(text, flag);
  if (c === undefined) return 'auto';
  if (!('table' in c) && c.up === 0 && c.down === 0) return 'off';
  return 'table' in c ? c : c.up;
}
