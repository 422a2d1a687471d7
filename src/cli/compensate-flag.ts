import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { parseCompensationTable, type Compensation } from '../link/compensation.js';
import { parseDurationUs } from '../units.js';

export const COMPENSATE_HELP =
  "what to take off each one-way delay so a client sees direct + configured: auto (the proxy's hop, measured at start), " +
  '0 (off), a duration, or FILE: a `redis-rtt calibrate --json FILE` result, whose table also pays for the wake-ups that grow with the delay';

/** `--compensate auto|0|20us|calibration.json`: undefined means auto. */
export function parseCompensateFlag(text: string, flag = '--compensate'): Compensation | undefined {
  if (text === 'auto') return undefined;
  if (/^[0-9.]+\s*[a-z]*$/i.test(text.trim())) {
    try {
      const us = parseDurationUs(text, flag, 'us');
      return { up: us, down: us };
    } catch {
      throw new ConfigError(flag, text, 'auto, 0, a duration like 20us, or a calibrate --json file');
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(text, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError(flag, text, `auto, 0, a duration like 20us, or a readable calibrate --json file (${why})`);
  }
  return parseCompensationTable(data, text);
}
