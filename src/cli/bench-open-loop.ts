import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { ConfigError, withTypedValue } from '../errors.js';
import { parseDurationUs, parseIntList, parseList, parseNonNegativeInt, parsePositiveDurationUs, parseRateList } from '../units.js';
import { parseAddress } from '../endpoint.js';
import { LINKS_ACCEPTED } from '../workload/link-list.js';
import { resolveOpenLoopOptions, type OpenLoopOptions } from '../workload/open-loop/options.js';
import { ARRIVALS, type Arrival } from '../workload/open-loop/schedule.js';
import { isOpenLoopOk, OPEN_LOOP_MODES, type OpenLoopMode, type OpenLoopReport } from '../workload/open-loop/types.js';
import { abortOnStop } from './stop-request.js';
import { writeJsonTarget, writeOutputFile } from './json-out.js';
import { benchCompensation } from './compensate-flag.js';
import { colorFor } from '../text-grid.js';

/** The open-loop flags of `bench`; with --rate or --clients the run is open-loop (or C closed loops). */
export function addOpenLoopFlags(cmd: Command): Command {
  return cmd
    .option('--clients <list>', 'connections per run (comma-separated for several runs); without --rate, C closed loops for --duration')
    .option('--rate <list>', 'open loop: commands per second over all connections, on a schedule fixed in advance; a list (1k,5k,20k) sweeps for saturation')
    .option('--duration <duration>', 'length of each open-loop run (a bare number is ms)', '10s')
    .addOption(new Option('--arrival <kind>', 'arrivals: poisson (exponential gaps) or uniform (evenly spaced)').choices([...ARRIVALS]).default('poisson'))
    .option('--batch-window <list>', 'with --rate: client-side batching windows to compare, like 0,100us,1ms (up to --batch commands per batch)')
    .option('--slo <duration>', 'with --rate: a run whose corrected p99 passes this counts as saturated');
}

/**
 * The closed-loop bench's flags that an open-loop run has no use for (its workload is INCR on one
 * counter, one run per configuration for --duration): refused, not ignored. Attribute name -> flag.
 */
const CLOSED_LOOP_ONLY: Record<string, [flag: string, why: string]> = Object.fromEntries([
  ...(['workload', 'n', 'size', 'repeat', 'warmup', 'driverWarmup', 'maxSeconds'] as const).map((key) => [
    key,
    [key === 'n' ? '-n' : `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, 'open-loop runs send INCR on one counter for --duration (docs/open-loop.md)'],
  ]),
]) as Record<string, [string, string]>;

export interface OpenLoopFlags {
  links: string;
  modes: string;
  batch: string;
  clients?: string;
  rate?: string;
  duration: string;
  arrival: string;
  batchWindow?: string;
  slo?: string;
  redis?: string;
  keyPrefix: string;
  allowNonempty?: boolean;
  compensate: string;
  seed: string;
  json?: string;
  csv?: string;
  markdown?: string;
  html?: string;
  hgrmDir?: string;
  format?: string;
}

export function isOpenLoop(flags: { clients?: string; rate?: string; batchWindow?: string; slo?: string }): boolean {
  return flags.clients !== undefined || flags.rate !== undefined || flags.batchWindow !== undefined || flags.slo !== undefined;
}

/**
 * Flags to options. `given(flag)` tells a flag typed by the user from a closed-loop default
 * (--modes defaults to seq,pipeline there; open-loop runs default to seq and B = 64).
 */
export function openLoopOptionsFromFlags(flags: OpenLoopFlags, given: (key: string) => boolean): OpenLoopOptions {
  for (const [key, [flag, why]] of Object.entries(CLOSED_LOOP_ONLY)) {
    if (given(key)) throw new ConfigError(flag, (flags as unknown as Record<string, unknown>)[key], `no such flag with --rate/--clients: ${why}`);
  }
  if (flags.csv !== undefined) throw new ConfigError('--csv', flags.csv, 'no --csv with --rate/--clients (open-loop runs write --json, --html and --hgrm-dir)');
  if (flags.markdown !== undefined) throw new ConfigError('--markdown', flags.markdown, 'no --markdown with --rate/--clients (open-loop runs write --json, --html and --hgrm-dir)');
  if (flags.batchWindow !== undefined && flags.rate === undefined) {
    throw new ConfigError('--batch-window', flags.batchWindow, 'to be given with --rate (a window gathers the commands a schedule makes due; closed loops have none)');
  }
  if (flags.slo !== undefined && flags.rate === undefined) throw new ConfigError('--slo', flags.slo, 'to be given with --rate');
  if (flags.redis !== undefined) parseAddress(flags.redis, '--redis');
  let maxBatch: number | undefined;
  if (given('batch')) {
    const batches = parseIntList(flags.batch, '--batch');
    if (batches.length !== 1) throw new ConfigError('--batch', flags.batch, 'one number with --rate: the most commands per batch');
    maxBatch = batches[0];
  }
  const options: OpenLoopOptions = {
    links: parseList(flags.links, '--links', LINKS_ACCEPTED),
    clients: flags.clients === undefined ? [1] : parseIntList(flags.clients, '--clients', 10_000),
    ...(flags.rate !== undefined ? { rates: parseRateList(flags.rate, '--rate') } : {}),
    durationUs: parsePositiveDurationUs(flags.duration, '--duration', 'a duration', '500ms or 20s (a bare number is ms)'),
    arrival: flags.arrival as Arrival,
    ...(flags.batchWindow !== undefined ? { batchWindowsUs: parseList(flags.batchWindow, '--batch-window', 'durations like 0,100us,1ms').map((w) => parseDurationUs(w, '--batch-window')) } : {}),
    ...(maxBatch !== undefined ? { maxBatch } : {}),
    modes: (given('modes') ? parseList(flags.modes, '--modes', `shapes (${OPEN_LOOP_MODES.join(', ')})`) : ['seq']) as OpenLoopMode[],
    ...(flags.slo !== undefined ? { sloUs: parsePositiveDurationUs(flags.slo, '--slo', 'a duration', '2ms') } : {}),
    keyPrefix: flags.keyPrefix,
    allowNonempty: flags.allowNonempty === true,
    seed: parseNonNegativeInt(flags.seed, '--seed', 2 ** 32 - 1),
    ...(given('compensate') ? { compensation: benchCompensation(flags.compensate) } : {}),
    ...(flags.redis !== undefined ? { redis: flags.redis } : {}),
  };
  try {
    resolveOpenLoopOptions(options); // everything checked before anything starts
  } catch (err) {
    throw withTypedValue(err, { '--compensate': flags.compensate });
  }
  return options;
}

/** Runs with progress on stderr; Ctrl-C stops the current run on time and prints what finished. */
export async function runOpenLoopCommand(options: OpenLoopOptions, flags: OpenLoopFlags): Promise<void> {
  const stop = abortOnStop((quit) => process.stderr.write(`redis-rtt: stopping now; in-flight replies are awaited ${quit}\n`));
  try {
    // Loaded when a run starts: a bench refused at its flags loads none of the run or its renderers.
    const { runOpenLoopBench } = await import('../workload/open-loop/bench.js');
    const { renderOpenLoopTable } = await import('../report/open-loop/table.js');
    const report = await runOpenLoopBench({ ...options, signal: stop.signal }, (ev) => {
      if (ev.type === 'note') process.stderr.write(`redis-rtt: ${ev.text}\n`);
      else if (ev.type === 'running') {
        const at = `${Math.round(ev.elapsedS)}s of ${ev.durationS}s${ev.elapsedS > ev.durationS ? ' (draining)' : ''}`;
        process.stderr.write(`redis-rtt:   ${at}: ${ev.sent} sent, ${ev.completed} answered, backlog ${ev.backlog}\n`);
      }
      else if (!isOpenLoopOk(ev.result)) process.stderr.write(`redis-rtt:   FAILED: ${ev.result.error}\n`);
      else {
        const r = ev.result;
        const c = r.correctedLatencyUs;
        process.stderr.write(
          `redis-rtt:   achieved ${r.achievedRate}/s, corrected p99 ${c.p99} us` +
            (r.punctualCorrectedP99Us != null ? ` (${r.punctualCorrectedP99Us} us sent on time)` : '') +
            `, uncorrected p99 ${r.uncorrectedLatencyUs.p99} us, late p99 ${r.latenessUs.p99} us${r.saturated ? ', saturated' : ''}\n`,
        );
      }
    });
    const table = renderOpenLoopTable(report, { color: colorFor(flags.format === 'table' ? process.stdout : process.stderr) });
    if (flags.format === 'table') process.stdout.write(table + '\n');
    else process.stderr.write(table + '\n');
    if (flags.format === 'json') process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    for (const f of await writeOpenLoopFiles(report, flags)) process.stderr.write(`redis-rtt: wrote ${f}\n`);
    if (stop.signal.aborted) process.exitCode = stop.exitStatus;
    else if (report.error !== undefined || report.results.some((r) => r.error)) process.exitCode = 1;
  } finally {
    stop.dispose();
  }
}

async function writeOpenLoopFiles(report: OpenLoopReport, flags: OpenLoopFlags): Promise<string[]> {
  const written: string[] = [];
  if (flags.json !== undefined) {
    const file = await writeJsonTarget(flags.json, JSON.stringify(report, null, 2) + '\n');
    if (file !== undefined) written.push(file);
  }
  if (flags.html !== undefined) {
    const { renderOpenLoopHtml } = await import('../report/open-loop/html.js');
    await writeOutputFile(flags.html, renderOpenLoopHtml(report));
    written.push(flags.html);
  }
  if (flags.hgrmDir !== undefined) {
    await mkdir(flags.hgrmDir, { recursive: true });
    const { rowLabel } = await import('../report/open-loop/table.js');
    const { LatencyHistogram } = await import('../numbers/histogram.js');
    const safe = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_');
    for (const r of report.results) {
      if (!isOpenLoopOk(r) || r.completed === 0) continue;
      const base = safe(`${rowLabel(r)} r${r.targetRate ?? 'closed'}`);
      for (const kind of ['corrected', 'uncorrected'] as const) {
        const file = join(flags.hgrmDir, `${base}-${kind}.hgrm`);
        await writeFile(file, LatencyHistogram.decode(r.histograms[kind]).percentileDistribution());
        written.push(file);
      }
    }
  }
  return written;
}

