import type { Command } from 'commander';
import { DEFAULT_CALIBRATE_RTTS_US, MIN_PINGS_PER_ROUND } from '../calibrate/measure.js';
import { renderCalibrateTable } from '../report/calibrate-table.js';
import { withTypedValue } from '../errors.js';
import { parseDurationUs, parseList, parsePositiveInt } from '../units.js';
import { missingTable, parseCompensateFlag } from './compensate-flag.js';
import { checkOutputs, JSON_FLAG, JSON_HELP, jsonToStdout, writeJsonTarget, writeOutputFile } from './json-out.js';
import { abortOnStop } from './stop-request.js';

interface CalibrateFlags {
  rtts: string;
  samples: string;
  compensate: string;
  rounds: string;
  json?: string;
  html?: string;
}

export function registerCalibrate(program: Command): void {
  program
    .command('calibrate')
    .description(
      'Measure how honestly this machine can simulate a link: spawns a private redis-server and a proxy, ' +
        'then measures PING round trips from a separate process, direct and through the proxy at each RTT, ' +
        "and prints configured vs measured added RTT (p50, p99, error) and the proxy's CPU use. By default it " +
        'then derives a compensation table from what this machine adds at each RTT, measures again with it, ' +
        'and saves it with --json for `redis-rtt proxy --compensate FILE`.',
    )
    .option('--rtts <list>', 'comma-separated RTTs to test (0 = proxy with no delay)', DEFAULT_CALIBRATE_RTTS_US.map((u) => `${u}us`).join(','))
    .option(
      '--samples <n>',
      `PINGs per row, spread over --rounds: at least ${MIN_PINGS_PER_ROUND} a round, so at least ${MIN_PINGS_PER_ROUND} x --rounds ` +
        `(rows above 2 ms use fewer, ~3 s each, still ${MIN_PINGS_PER_ROUND} a round)`,
      '1000',
    )
    .option(
      '--compensate <auto|off|duration|file>',
      'auto: measure with no compensation, derive a table from each RTT\'s excess, then measure again with it ' +
        '(save it with --json FILE and pass FILE to `proxy --compensate`); or one pass with off (0), a duration (bare number: ms), or a saved table',
      'auto',
    )
    .option('--rounds <n>', 'alternating direct/proxied blocks per row', '5')
    .option(JSON_FLAG, `${JSON_HELP}; with -, the table goes to stderr`)
    .option('--html <file>', 'write a self-contained HTML report')
    .addHelpText(
      'after',
      '\nExamples:\n  redis-rtt calibrate --rtts 0,200us,1.2ms,10ms --samples 2000 --json calibrate.json\n' +
        '  redis-rtt proxy --upstream 127.0.0.1:6379 --preset cross-az --compensate calibrate.json',
    )
    .action(async (flags: CalibrateFlags) => {
      checkOutputs({ '--json': flags.json, '--html': flags.html }, {}, [], { makeFolders: false });
      const rttsUs = parseList(flags.rtts, '--rtts', 'durations like 0,200us,1.2ms').map((t) => parseDurationUs(t, '--rtts'));
      const samples = parsePositiveInt(flags.samples, '--samples', 1_000_000);
      const compensationUs = parseCompensateFlag(flags.compensate);
      const rounds = parsePositiveInt(flags.rounds, '--rounds', 1000);
      const stop = abortOnStop((quit) => process.stderr.write(`redis-rtt: stopping after the current block of PINGs ${quit}\n`));
      try {
        const progress = (l: string): boolean => process.stderr.write(l + '\n');
        // The run checks --samples against --rounds: its error shows the text typed, not the number.
        // Loaded when the run starts: a calibrate refused at its flags loads none of it.
        const { runCalibrate } = await import('../calibrate/run.js');
        const report = await runCalibrate({ rttsUs, samples, compensationUs, rounds, progress, signal: stop.signal }).catch((err: unknown) => {
          throw withTypedValue(err, { '--samples': flags.samples });
        });
        const savedAs = flags.json !== undefined && !jsonToStdout(flags.json) ? { savedAs: flags.json } : {};
        process[jsonToStdout(flags.json) ? 'stderr' : 'stdout'].write(renderCalibrateTable(report, savedAs) + '\n');
        if (flags.json !== undefined) {
          const written = await writeJsonTarget(flags.json, JSON.stringify(report, null, 2) + '\n');
          if (written !== undefined) process.stderr.write(`redis-rtt: wrote ${written}\n`);
          // Said now, not only when proxy --compensate refuses the file later.
          const missing = compensationUs === undefined ? missingTable(report) : undefined;
          if (missing !== undefined) process.stderr.write(`redis-rtt: note: no compensationTable for proxy --compensate: ${missing}\n`);
        }
        if (flags.html) {
          const { renderHtml } = await import('../report/html.js');
          await writeOutputFile(flags.html, renderHtml(report));
          process.stderr.write(`redis-rtt: wrote ${flags.html}\n`);
        }
        if (stop.signal.aborted) process.exitCode = stop.exitStatus;
      } finally {
        stop.dispose();
      }
    });
}
