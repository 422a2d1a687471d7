import { checkOutputs, JSON_FLAG, JSON_HELP, jsonToStdout, writeJsonTarget, writeOutputFile } from './json-out.js';
import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { DEMO_LINKS } from '../workload/link-list.js';
import { renderClusterTable } from '../cluster/bench/cluster-table.js';
import { fmtSeconds, progressPrinter } from './bench-progress.js';
import { abortOnStop, stoppingAfterSample } from './stop-request.js';
import { colorFor } from '../text-grid.js';

/** Where each demo writes its JSON unless --json says: apart, since `report` reads only the first. */
const DEMO_JSON = 'redis-rtt-report.json';
const CLUSTER_DEMO_JSON = 'redis-rtt-cluster.json';

interface DemoFlags {
  json?: string;
  html: string | false;
  cluster?: boolean;
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      `One command, no setup: spawns a private redis-server and a proxy per link (${DEMO_LINKS.join(', ')}), ` +
        'compares 1000 SETs as a loop, pipelined 10/100/1000 and as MSET, and GETs as a loop and MGET, then prints ' +
        'the table and a two-line reading. Finishes in about a minute (at most 90 s); slow cross-region cells run fewer ' +
        'operations, and say so.',
    )
    .option(JSON_FLAG, `${JSON_HELP}; with -, the table goes to stderr (default: ${DEMO_JSON}; with --cluster, ${CLUSTER_DEMO_JSON})`)
    .option('--html <file>', 'where to write the HTML report', 'redis-rtt-report.html')
    .option('--no-html', 'do not write the HTML report')
    .option('--cluster', 'instead: a private 3+3 Redis Cluster in 3 zones behind per-node links, ioredis Cluster shapes (well under 90 s; table and --json, no HTML)')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  redis-rtt demo                                   # table on stdout, redis-rtt-report.json and .html written\n' +
        '  redis-rtt demo --json - --no-html | jq .results  # JSON on stdout, the table on stderr\n' +
        `  redis-rtt demo --cluster                         # the same idea on a 3+3 Cluster in 3 zones, ${CLUSTER_DEMO_JSON} written\n` +
        '  redis-rtt report redis-rtt-report.json --format markdown',
    )
    .action(async (flags: DemoFlags, cmd: Command) => {
      // The cluster demo's result is not one `report` reads: it must not replace the plain demo's.
      const json = flags.json ?? (flags.cluster ? CLUSTER_DEMO_JSON : DEMO_JSON);
      // The cluster demo has no HTML page: an --html asked for would be written nowhere.
      if (flags.cluster && flags.html !== false && cmd.getOptionValueSource('html') === 'cli') {
        throw new ConfigError('--html', flags.html, 'no --html with --cluster (the cluster demo prints its table and writes --json only)');
      }
      // A path that cannot be written fails now, not after a minute of measuring.
      checkOutputs({ '--json': json, '--html': flags.cluster || flags.html === false ? undefined : flags.html }, {}, [], { makeFolders: false });
      const started = Date.now();
      if (flags.cluster) {
        // Ctrl-C: stop after the sample in flight, report what finished, exit 130, or 143 after SIGTERM (the run's
        // finally blocks close the proxy and the private cluster); a second Ctrl-C leaves at once.
        const stop = abortOnStop((quit) => process.stderr.write(stoppingAfterSample(quit)));
        try {
          const log = (line: string): void => void process.stderr.write(`redis-rtt: ${line}\n`);
          // Loaded when the run starts, as the plain demo's below: a demo refused at its flags loads none of it.
          const { runClusterBench } = await import('../cluster/bench/cluster-bench.js');
          const report = await runClusterBench({ zones: 3, n: 100, repeat: 2, signal: stop.signal, log });
          const tableTo = jsonToStdout(json) ? process.stderr : process.stdout;
          tableTo.write(renderClusterTable(report, { color: colorFor(tableTo) }));
          const written = await writeJsonTarget(json, JSON.stringify(report, null, 2) + '\n');
          if (written) process.stderr.write(`redis-rtt: wrote ${written}\n`);
          process.stderr.write(`redis-rtt: demo took ${fmtSeconds(Date.now() - started)}\n`);
          if (report.interrupted) process.exitCode = stop.exitStatus;
        } finally {
          stop.dispose();
        }
        return;
      }
      const progress = progressPrinter();
      const stop = abortOnStop((quit) => {
        progress.done();
        process.stderr.write(`redis-rtt: stopping after the current wait ${quit}\n`);
      });
      try {
        const { runDemo } = await import('../workload/demo.js');
        const { renderHtml, renderTable } = await import('../report/index.js');
        const report = await runDemo({ signal: stop.signal, progress: progress.onEvent });
        progress.done();
        // renderTable ends with the two-line reading ("at cross-az, pipelining 100 cut ...").
        const tableTo = jsonToStdout(json) ? process.stderr : process.stdout;
        tableTo.write(renderTable(report, { color: colorFor(tableTo) }) + '\n');
        const written = await writeJsonTarget(json, JSON.stringify(report, null, 2) + '\n');
        if (written !== undefined) process.stderr.write(`redis-rtt: wrote ${written}\n`);
        if (flags.html !== false) {
          await writeOutputFile(flags.html, renderHtml(report));
          process.stderr.write(`redis-rtt: wrote ${flags.html}\n`);
        }
        process.stderr.write(`redis-rtt: demo took ${fmtSeconds(Date.now() - started)}\n`);
        if (stop.signal.aborted) process.exitCode = stop.exitStatus;
        else if (report.results.some((r) => r.error)) process.exitCode = 1;
      } finally {
        progress.done();
        stop.dispose();
      }
    });
}
