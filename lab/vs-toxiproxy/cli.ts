import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parsePositiveInt } from '../../src/units.js';
import { DEFAULT_CELLS, DEFAULT_SHAPES, parseCells, parseNice, parseRunSeconds, parseShapes } from './plan.js';
import { renderVsToxiproxy } from './render.js';
import { runVsToxiproxy } from './run.js';
import { TOXIPROXY_ENV, toxiproxyPath } from './targets.js';
import { HAPROXY_PATH } from '../tools/haproxy.mjs';

interface VsFlags {
  rounds: string;
  cells: string;
  shapes: string;
  seconds: string;
  minRequests?: string;
  requests?: string;
  throughputRequests: string;
  haproxy?: string | boolean;
  json?: string;
  settle: string;
  nice?: string;
}

export function registerVsToxiproxy(program: Command): void {
  program
    .command('vs-toxiproxy')
    .description(
      'redis-rtt and toxiproxy side by side in one run, each in its own process in front of one private Redis: ' +
        'redis-benchmark GET -P 1 with a one-way delay L down (excess over direct in the same round at p50, p99 ' +
        "and max; CPU per request; redis-rtt's /stats self-report beside what the client saw), then throughput " +
        `with no delay. Needs redis-server, redis-benchmark and toxiproxy-server (its path in $${TOXIPROXY_ENV}).`,
    )
    .option('--rounds <n>', 'alternating rounds (targets in rotated order; a warm-up run each first)', '5')
    .option('--cells <list>', 'latency cells, DELAYms:CLIENTS (whole ms, toxiproxy\'s unit)', DEFAULT_CELLS)
    .option('--seconds <duration>', 'about this long per latency run, a bare number in seconds (sets redis-benchmark -n from L and clients)', '5s')
    .option('--requests <n>', 'redis-benchmark -n per latency run instead of --seconds')
    .option('--min-requests <n>', 'with --seconds: at least this many requests per latency run (a one-client run at 20 ms is 199 requests in 4 s)')
    .option('--shapes <list>', 'throughput shapes with no delay, CLIENTSxPIPELINE, or none', DEFAULT_SHAPES)
    .option('--throughput-requests <n>', 'redis-benchmark -n per throughput run at -P 1 (times P when pipelined)', '20000')
    .option('--haproxy [path]', `add HAProxy (TCP mode) to the throughput runs (default path ${HAPROXY_PATH})`)
    .option('--settle <seconds>', 'before each round, wait up to this long for the load average to fall under 1.0 (0: do not wait)', '120')
    .option('--nice <n>', 'run every proxy, all its threads, at this nice value (-20..19; below 0 needs root); Redis and redis-benchmark keep theirs')
    .option('--json <file>', 'also write the report, with every run, as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        `  ${TOXIPROXY_ENV}=/path/to/toxiproxy-server npm run lab:vs-toxiproxy\n` +
        `  ${TOXIPROXY_ENV}=/path/to/toxiproxy-server npm run lab:vs-toxiproxy -- --rounds 1 --cells 1ms:1,20ms:50 --requests 2000 --shapes none\n` +
        `  ${TOXIPROXY_ENV}=/path/to/toxiproxy-server npm run lab:vs-toxiproxy -- --haproxy --json /tmp/vs.json\n` +
        `  sudo ${TOXIPROXY_ENV}=/path/to/toxiproxy-server npm run lab:vs-toxiproxy -- --nice -5   # the proxies favoured by the OS scheduler\n`,
    )
    .action(async (flags: VsFlags) => {
      const serverPath = toxiproxyPath();
      const report = await runVsToxiproxy({
        toxiproxyPath: serverPath,
        rounds: parsePositiveInt(flags.rounds, '--rounds', 100),
        cells: parseCells(flags.cells),
        shapes: parseShapes(flags.shapes),
        seconds: parseRunSeconds(flags.seconds),
        ...(flags.requests === undefined ? {} : { requests: parsePositiveInt(flags.requests, '--requests', 10_000_000) }),
        ...(flags.minRequests === undefined ? {} : { minRequests: parsePositiveInt(flags.minRequests, '--min-requests', 10_000_000) }),
        throughputRequests: parsePositiveInt(flags.throughputRequests, '--throughput-requests', 10_000_000),
        ...(flags.haproxy === undefined ? {} : { haproxyPath: flags.haproxy === true ? HAPROXY_PATH : String(flags.haproxy) }),
        settleSeconds: parseRunSeconds(flags.settle, '--settle'),
        ...(flags.nice === undefined ? {} : { nice: parseNice(flags.nice) }),
        progress: (line) => process.stderr.write(line + '\n'),
      });
      process.stdout.write(renderVsToxiproxy(report));
      if (flags.json) await writeFile(flags.json, JSON.stringify(report, null, 2) + '\n');
    });
}
