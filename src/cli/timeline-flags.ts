import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { parseRttSeries } from '../link/rtt-series.js';
import { parseLinkSchedule } from '../link/schedule.js';
import { parseRttWave } from '../link/wave.js';
import { parseJsonText } from '../validation/json-text.js';

/** Flags for a link that moves over time (docs/link-over-time.md): a wave, a schedule file, a replayed series. */
export function addTimelineFlags(cmd: Command): Command {
  return cmd
    .option('--rtt-wave <shape:period:amplitude>', 'move the RTT in a wave around the link\'s: sine|square|triangle|sawtooth, e.g. sine:60s:20ms (RTT in [rtt - 20ms, rtt + 20ms])')
    .option('--no-rtt-wave', 'no wave (the default; over a --config file\'s "rttWave")')
    .option('--link-schedule <file>', 'JSON: link changes and partitions at set times from the start, [{"at":"30s","link":{"rttUs":85000},"ramp":"5s"}, {"at":"60s","partition":"10s"}] or {"loop":true,"steps":[...]}')
    .option('--no-link-schedule', 'no schedule (the default; over a --config file\'s "linkSchedule")')
    .option('--rtt-series <file>', 'replay a measured RTT: a CSV of seconds,rtt_ms, or the output of ping -D as is; each value holds until the next, looping at the end')
    .option('--no-rtt-series', 'no replayed series (the default; over a --config file\'s "rttSeries", its rttSeriesOnce dropped with it)')
    .option('--rtt-series-once', 'at the end of --rtt-series keep its last value instead of starting over');
}

export interface TimelineFlagValues {
  rttWave?: string;
  linkSchedule?: string;
  rttSeries?: string;
  rttSeriesOnce?: boolean;
}

/** The proxy options the flags give; files are read here (their contents are checked by startProxy). */
export function timelineFromFlags(f: TimelineFlagValues): { rttWave?: string; linkSchedule?: unknown; rttSeries?: string; rttSeriesOnce?: boolean } {
  const out: { rttWave?: string; linkSchedule?: unknown; rttSeries?: string; rttSeriesOnce?: boolean } = {};
  // Checked here as the config file's keys are (proxy-config.ts), not first by the start: that dials
  // the upstream for cluster discovery before, so a typo waited for its connect (10 s to a host that
  // does not answer) and came after its log line.
  if (f.rttWave !== undefined) {
    parseRttWave(f.rttWave);
    out.rttWave = f.rttWave;
  }
  if (f.linkSchedule !== undefined) {
    const text = readText(f.linkSchedule, '--link-schedule');
    try {
      out.linkSchedule = parseJsonText(text);
    } catch (err) {
      throw new ConfigError('--link-schedule', f.linkSchedule, `a JSON file (${(err as Error).message})`);
    }
  }
  if (f.rttSeries !== undefined) out.rttSeries = readText(f.rttSeries, '--rtt-series');
  if (out.rttSeries !== undefined) parseRttSeries(out.rttSeries);
  // Without --rtt-series it is refused by the start (normalize-options.ts), not here: a config file's
  // rttSeries may be the series it ends.
  if (f.rttSeriesOnce) out.rttSeriesOnce = true;
  return out;
}

function readText(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(flag, path, `a readable file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/**
 * The trace header's linkMoves entry for a schedule with a ramp: `--link-schedule`, or the config file's
 * `linkSchedule` when no flag gave one (the flag wins). A ramp moves the delays between the trace's link
 * lines, which hear of its target at the step's start only, as a wave moves them without any line.
 */
export function rampingScheduleMoves(fromFlag: unknown, fromFile: unknown): string[] {
  const [schedule, name] = fromFlag !== undefined ? [fromFlag, '--link-schedule'] : [fromFile, 'linkSchedule'];
  if (schedule === undefined) return [];
  return parseLinkSchedule(schedule, name).steps.some((step) => step.rampUs !== undefined) ? [name] : [];
}
