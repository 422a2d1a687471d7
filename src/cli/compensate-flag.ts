import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { parseCompensationTable, type Compensation } from '../link/compensation.js';
import { parseDurationUs } from '../units.js';
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
  return parseCompensationTable(data, text);
}

/** The bench's `--compensate`, as runBench and runOpenLoopBench take it: 'off', 'auto', us both ways, or a table. */
export function benchCompensation(text: string, flag = '--compensate'): NonNullable<BenchOptions['compensation']> {
  if (text === 'off' || text === 'auto') return text;
  const c = parseCompensateFlag(text, flag);
  if (c === undefined) return 'auto';
  if (!('table' in c) && c.up === 0 && c.down === 0) return 'off';
  return 'table' in c ? c : c.up;
}
