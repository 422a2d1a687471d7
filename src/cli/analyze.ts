import { stat, writeFile } from 'node:fs/promises';
import { getHeapStatistics } from 'node:v8';
import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { fmtBytes } from '../format.js';
import { checkOutputs, JSON_FLAG, JSON_HELP, jsonToStdout, writeJsonTarget } from './json-out.js';
import { analyzeTrace, DEFAULT_ANALYZE, type AnalyzeOptions } from '../record/analyze.js';
import { renderJson, renderText } from '../record/render.js';
import { readTrace, TraceFormatError } from '../record/trace-reader.js';
import { parseDurationUs, parseList, parseLossFraction, parsePositiveInt, parseWholeNumber } from '../units.js';

interface AnalyzeFlags {
  rtt: string;
  json?: string;
  html?: string;
  minRun: string;
  maxGap: string;
  top: string;
  handshake: boolean;
  loss?: string;
  /** Unset: chained for a cluster trace only (analyzeTrace's default). */
  chainConnections?: boolean;
}

export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description(
      'Read a trace recorded with `redis-rtt proxy --record FILE`: round trips, flights and depth per connection, ' +
        'time spent waiting on Redis vs thinking, the session projected to other RTTs, and loops that one pipeline ' +
        'or multi-key command could replace. Report on stdout (--json -: JSON there instead).',
    )
    .argument('<TRACE>', 'the trace file, written by `redis-rtt proxy --record FILE`')
    .option('--rtt <list>', 'RTTs to project the session to, comma-separated (us, ms, s; bare numbers are ms)', '0.2ms,1.2ms,85ms')
    .option(JSON_FLAG, `${JSON_HELP}; with -, instead of the tables`)
    .option('--html <file>', 'also write a self-contained HTML report (tables and a chart) to this file')
    .option('--min-run <n>', 'shortest run of single-command round trips reported as an opportunity', String(DEFAULT_ANALYZE.minRun))
    .option('--max-gap <duration>', 'longest client think time inside such a run (a longer pause ends it)', '100ms')
    .option('--top <n>', 'commands listed by time waited', String(DEFAULT_ANALYZE.top))
    .option('--loss <p>', 'project to a link that also loses segments each way, in [0, 1): 1% or 0.01 (each round trip pays the loss model\'s mean; its p99 and p99.9 are shown)')
    .option('--no-handshake', 'do not charge one RTT of TCP set-up to connections opened during the recording (recorded TLS handshakes are still charged)')
    .option(
      '--chain-connections',
      'one application used its connections in turn (a blocking or subscriber connection it waits on, clients closed one after another): ' +
        'each round trip also waits for whatever finished before it on any connection (the default for a cluster trace)',
    )
    .option('--no-chain-connections', 'connections are independent after they open, as a pool serving concurrent tasks (the default for a single-node trace)')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:6379 --listen 127.0.0.1:6380 --preset local --record app.trace\n' +
        '  redis-rtt analyze app.trace --rtt 1.2ms,20ms,85ms\n' +
        '  redis-rtt analyze app.trace --json - | jq .projections\n' +
        '  redis-rtt analyze app.trace --rtt 1.2ms,85ms --loss 0.5%   # the expected wall and the per-round-trip tail\n' +
        '  redis-rtt analyze app.trace --html app.html',
    )
    .action(async (file: string, flags: AnalyzeFlags) => {
      const options = analyzeOptionsFromFlags(flags);
      const outputs = { '--html': flags.html, '--json': flags.json };
      // Checked before the read, but a missing folder is made only once the trace has read: a
      // trace that fails leaves nothing behind (--html out/x.html made out/ for nothing).
      checkOutputs(outputs, {}, [file], { makeFolders: false });
      const bytes = await stat(file).then((s) => (s.isFile() ? s.size : 0), () => 0);
      const note = heapNote(file, bytes, getHeapStatistics().heap_size_limit);
      if (note !== undefined) process.stderr.write(`redis-rtt: note: ${note}\n`);
      const trace = await readTrace(file, { argSizes: false }).catch((err: unknown) => {
        if (err instanceof TraceFormatError) throw new ConfigError('TRACE', file, `a redis-rtt trace (${err.message})`);
        throw err;
      });
      checkOutputs(outputs, {}, [file]);
      const analysis = analyzeTrace(trace, options);
      if (flags.html !== undefined) {
        // Loaded only for a page: the text and JSON outputs, and a run refused at its flags, do without it.
        const { renderHtml } = await import('../record/render-html.js');
        await writeFile(flags.html, renderHtml(analysis, file)).catch(refuseWrite('--html', flags.html));
        // As bench, demo, calibrate and report say each file they write (and this --json FILE).
        process.stderr.write(`redis-rtt: wrote ${flags.html}\n`);
      }
      if (flags.json !== undefined) {
        const written = await writeJsonTarget(flags.json, renderJson(analysis, file)).catch(refuseWrite('--json', flags.json));
        if (written !== undefined) process.stderr.write(`redis-rtt: wrote ${written}\n`);
      }
      if (!jsonToStdout(flags.json)) process.stdout.write(renderText(analysis, { file }));
    });
}

/** What analyze holds in memory per byte of trace: its events and their timelines (docs/record-analyze.md#limits). */
const HEAP_PER_TRACE_BYTE = 4;

/**
 * Said before reading a trace this Node's heap may not hold: running out aborts the process with V8's
 * report and no word of the cause, after minutes of reading.
 */
export function heapNote(file: string, traceBytes: number, heapLimitBytes: number): string | undefined {
  if (traceBytes * HEAP_PER_TRACE_BYTE <= heapLimitBytes) return undefined;
  const mb = Math.ceil((traceBytes * (HEAP_PER_TRACE_BYTE + 1)) / 1e6);
  return (
    `${file} is ${fmtBytes(traceBytes)}B: analyze holds a trace in memory, about ${HEAP_PER_TRACE_BYTE} times its size, ` +
    `and this Node's heap may grow to ${fmtBytes(heapLimitBytes)}B; should it run out, give it more: NODE_OPTIONS=--max-old-space-size=${mb}`
  );
}

/**
 * A write that checkOutputs let through can still fail (a folder writable for root that takes no
 * file, as /proc; a full disk): exit 2 naming the flag, not an exit 1 with the bare errno.
 */
function refuseWrite(flag: string, path: string): (err: unknown) => never {
  return (err) => {
    throw new ConfigError(flag, path, `a file that can be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  };
}

export function analyzeOptionsFromFlags(flags: AnalyzeFlags): AnalyzeOptions {
  const parts = parseList(String(flags.rtt), '--rtt', 'durations like 0.2ms,1.2ms,85ms');
  return {
    rttsUs: parts.map((p) => parseDurationUs(p, '--rtt')),
    // From 2 (a run of one saves nothing), and one message for every bad value: "x" was told "from 1".
    minRun: parseWholeNumber(flags.minRun, '--min-run', 2, 1_000_000),
    maxGapUs: parseDurationUs(flags.maxGap, '--max-gap'),
    top: parsePositiveInt(flags.top, '--top', 1000),
    handshake: flags.handshake,
    ...(flags.loss !== undefined ? { loss: parseLossFraction(flags.loss, '--loss') } : {}),
    ...(flags.chainConnections !== undefined ? { chainConnections: flags.chainConnections } : {}),
  };
}
