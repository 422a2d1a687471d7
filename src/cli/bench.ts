import { benchCompensation } from './compensate-flag.js';
import { checkClientZones, checkZones } from '../cluster/options.js';
import { renderClusterTable } from '../cluster/bench/cluster-table.js';
import { Option, type Command } from 'commander';
import { ConfigError, withTypedValue } from '../errors.js';
import { parseDurationUs, parseIntList, parseList, parseNonNegativeInt, parsePositiveInt } from '../units.js';
import { parseAddress } from '../endpoint.js';
import type { BenchOptions } from '../workload/bench.js';
import { DEFAULT_BENCH_OPTIONS, resolveBenchOptions } from '../workload/options.js';
import { LINKS_ACCEPTED } from '../workload/link-list.js';
import { MODES, WORKLOADS, type Mode, type Workload } from '../results/types.js';
import type { BenchOutputFlags } from './bench-output.js';
import { checkOutputs, JSON_FLAG, JSON_HELP, jsonToStdout, writeJsonTarget } from './json-out.js';
import { progressPrinter } from './bench-progress.js';
import { abortOnStop, stoppingAfterSample } from './stop-request.js';
import { addOpenLoopFlags, isOpenLoop, openLoopOptionsFromFlags, runOpenLoopCommand, type OpenLoopFlags } from './bench-open-loop.js';
import { OPEN_LOOP_MODES } from '../workload/open-loop/types.js';
import { colorFor } from '../text-grid.js';

interface BenchFlags extends Omit<BenchOutputFlags, 'format'> {
  links: string;
  modes: string;
  batch: string;
  workload: string;
  n: string;
  size: string;
  repeat: string;
  warmup: string;
  driverWarmup: string;
  redis?: string;
  keyPrefix: string;
  allowNonempty?: boolean;
  maxSeconds?: string;
  seed: string;
  compensate: string;
  format?: string;
  clients?: string;
  rate?: string;
  duration: string;
  arrival: string;
  batchWindow?: string;
  slo?: string;
  cluster?: boolean;
  zones?: string;
  clientZones?: string;
}

export function registerBench(program: Command): void {
  const d = DEFAULT_BENCH_OPTIONS;
  const bench = program
    .command('bench')
    .description(
      'Run the same work in different shapes (loop, pipeline, MULTI, MGET/MSET, Lua, auto-pipelining) across ' +
        'links, and compare. Each configuration gets a warm-up, then timed repetitions in rotated order; every ' +
        'reply is checked. Spawns a private redis-server (no persistence) unless --redis is given.',
    )
    .option('--links <list>', `comma-separated: ${LINKS_ACCEPTED}`, d.links.join(','))
    .option('--modes <list>', `comma-separated shapes: ${MODES.join(', ')}; with --rate/--clients: ${OPEN_LOOP_MODES.join(', ')} (seq if not given)`, d.modes.join(','))
    .option('--batch <list>', 'operations per wait (commands in flight for auto); seq always runs one at a time', d.batches.join(','))
    .addOption(new Option('--workload <name>', 'incr (one counter, replies 1..N), set (--size byte values), get (preloaded keys)').choices([...WORKLOADS]).default(d.workload))
    .option('-n, --n <count>', 'operations per sample', String(d.n))
    .option('--size <bytes>', 'value size for set and get', String(d.sizeBytes))
    .option('--repeat <count>', 'timed repetitions per configuration', String(d.repeat))
    .option('--warmup <count>', 'untimed (but checked) samples per configuration first', String(d.warmup))
    .option(
      '--driver-warmup <duration>',
      "before any sample, run each shape straight to Redis for up to this long (or 20k commands) so V8 has optimised the client's code; 0 skips it",
      `${d.driverWarmupMs}ms`,
    )
    .option('--redis <addr>', 'use this Redis (host:port or unix:/path) instead of a private one')
    .option('--key-prefix <prefix>', 'every key written starts with this; only these keys are deleted', d.keyPrefix)
    .option('--allow-nonempty', 'run against a database that holds keys (nothing is flushed; only prefixed keys are touched)')
    .option('--max-seconds <s>', 'a bound on the whole run (bare number: seconds): a sample starts only if its expected time fits in what is left, others are listed as skipped with their expected time; the run ends within the bound plus the estimate error of the last sample started (stated); exit 2 when no sample fits')
    .option('--seed <n>', 'seed for values and jitter', String(d.seed))
    .option('--compensate <off|auto|duration|file>', "take the proxy's own cost off each one-way delay: off or 0 (every wait costs at least its RTT; local is the model's baseline), auto (the hop, measured at start), a duration (bare number: ms), or a `calibrate --json` FILE (its table also pays for the wake-ups that grow with the delay); refused when every link is direct (no proxy)", 'off')
    .option('--cluster', 'Redis Cluster: ioredis Cluster through per-node links (a private 3+3 cluster, or --redis SEED); shapes seq, pipeline, MSET/MGET with hash tags, reads from replicas vs primaries; round trips per node')
    .option('--zones <n>', 'with --cluster: place the nodes in N zones (same-az in the client zone, cross-az elsewhere) instead of --links')
    .option('--client-zones <n>', 'with --cluster: apps in zones 1..N (N at most --zones, which defaults to N), each through its own listeners: reads from primaries vs from the replica in its own zone')
    .option(JSON_FLAG, JSON_HELP)
    .option('--csv <file>', 'write one CSV row per configuration')
    .option('--markdown <file>', 'write a markdown table')
    .option('--html <file>', 'write a self-contained HTML report')
    .option('--hgrm-dir <dir>', 'write one HdrHistogram .hgrm file (latency per wait) per configuration')
    .addOption(
      new Option('--format <format>', 'what goes to stdout: the table, or the JSON report (without it the table goes to stderr)').choices([
        'table',
        'json',
      ]),
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  redis-rtt bench --links direct,same-az,cross-az --modes seq,pipeline --batch 8,64,256\n' +
        '  redis-rtt bench --workload incr -n 2048 --batch 1,8,64,256 --repeat 3 --json out.json\n' +
        '  redis-rtt bench --workload set --size 512 --modes seq,pipeline,multi,mset,lua,auto --links local,rtt=2ms/jitter=0.2ms\n' +
        '  redis-rtt bench --links cross-region --clients 1 --rate 20 --duration 20s   # open loop, over capacity\n' +
        '  redis-rtt bench --links same-az,cross-az --clients 1,50 --rate 1k,5k,20k --duration 5s --slo 5ms\n' +
        '  redis-rtt bench --links cross-az --clients 8 --rate 2000 --batch-window 0,100us,1ms --batch 16 --modes seq,auto\n' +
        '  redis-rtt bench --links cross-az --clients 8 --rate 2000 --modes seq,mux   # a pool (one in flight) vs multiplexed\n' +
        '  redis-rtt bench --cluster --zones 3 -n 200          # primary vs replica reads, same-zone vs cross-zone\n' +
        '  redis-rtt bench --cluster --links same-az,cross-az --redis 127.0.0.1:30001\n' +
        '  redis-rtt bench --cluster --client-zones 3 -n 200   # per client zone: primaries vs the same-zone replica\n' +
        '  redis-rtt bench --links local,cross-region --modes seq -n 100 --max-seconds 3   # cross-region skipped: 8.5 s a sample\n' +
        '\nWith --rate (or --clients) the run is open-loop: see docs/open-loop.md. --cluster: see docs/cluster.md.',
    );
  addOpenLoopFlags(bench);
  bench.action(async (flags: BenchFlags, cmd: Command) => {
      if (jsonToStdout(flags.json) && flags.format !== undefined) {
        throw new ConfigError('--json', '-', 'a file when --format is given (stdout holds one output)');
      }
      const given = (key: string): boolean => cmd.getOptionValueSource(key) === 'cli';
      refuseIgnoredFlags(flags, given);
      // Their folders are made as they are written: a run that fails to start leaves none behind.
      const outputs = { '--json': flags.json, '--csv': flags.csv, '--markdown': flags.markdown, '--html': flags.html };
      checkOutputs(outputs, { '--hgrm-dir': flags.hgrmDir }, [], { makeFolders: false });
      if (flags.cluster) return runClusterBenchCommand(flags, cmd);
      if (isOpenLoop(flags)) {
        const options = openLoopOptionsFromFlags(flags as OpenLoopFlags, given);
        await runOpenLoopCommand(options, flags as OpenLoopFlags);
        return;
      }
      const options = benchOptionsFromFlags(flags, given);
      // The run checks --max-seconds against its plan: its error shows the text typed, not the number.
      await runBenchCommand(options, { ...flags, format: flags.format as 'table' | 'json' | undefined }).catch((err: unknown) => {
        throw withTypedValue(err, { '--max-seconds': flags.maxSeconds });
      });
    });
}

/**
 * What --cluster runs without: its shapes, workload and outputs are its own (a table, --json, --format
 * json), so these flags would change nothing. Attribute name -> flag.
 */
const NOT_WITH_CLUSTER: Record<string, string> = {
  modes: '--modes', workload: '--workload', size: '--size', warmup: '--warmup', driverWarmup: '--driver-warmup',
  maxSeconds: '--max-seconds', seed: '--seed', compensate: '--compensate', csv: '--csv', markdown: '--markdown',
  html: '--html', hgrmDir: '--hgrm-dir', clients: '--clients', rate: '--rate', duration: '--duration', arrival: '--arrival',
  batchWindow: '--batch-window', slo: '--slo',
};

/** A flag that only means something with another is refused without it (exit 2), not ignored. */
function refuseIgnoredFlags(flags: BenchFlags, given: (key: string) => boolean): void {
  if (!flags.cluster) {
    if (flags.zones !== undefined) throw new ConfigError('--zones', flags.zones, 'to be given with --cluster');
    if (flags.clientZones !== undefined) throw new ConfigError('--client-zones', flags.clientZones, 'to be given with --cluster');
  } else {
    // Zones set each node's link by its zone; client zones run sequential GETs only.
    if ((flags.zones !== undefined || flags.clientZones !== undefined) && given('links')) {
      throw new ConfigError('--links', flags.links, 'no --links with --zones or --client-zones, which give each node the link of its zone');
    }
    if (flags.clientZones !== undefined && given('batch')) {
      throw new ConfigError('--batch', flags.batch, 'no --batch with --client-zones, which runs sequential GETs only');
    }
    for (const [key, flag] of Object.entries(NOT_WITH_CLUSTER)) {
      if (given(key)) {
        const value = (flags as unknown as Record<string, unknown>)[key];
        throw new ConfigError(flag, value, 'no such flag with --cluster, which runs its own shapes and writes its table, --json and --format json only');
      }
    }
  }
  // Only set and get have values (set writes them, get reads preloaded ones): with incr --size changed nothing.
  // (Open-loop runs refuse --size with their own reason.)
  if (given('size') && flags.workload === 'incr' && !isOpenLoop(flags)) throw new ConfigError('--size', flags.size, 'to be given with --workload set or get (incr writes no values)');
  if (given('arrival') && flags.rate === undefined) throw new ConfigError('--arrival', flags.arrival, 'to be given with --rate (closed loops have no schedule)');
  if (given('duration') && flags.rate === undefined && flags.clients === undefined) {
    throw new ConfigError('--duration', flags.duration, 'to be given with --rate or --clients (a closed-loop bench runs -n commands; --max-seconds caps it)');
  }
}

/** Turns flags into options; every bad value is a ConfigError naming its flag (exit status 2). */
export function benchOptionsFromFlags(flags: BenchFlags, given: (key: string) => boolean): BenchOptions {
  const modes = parseList(flags.modes, '--modes', MODES.join(', '));
  for (const m of modes) if (!MODES.includes(m as Mode)) throw new ConfigError('--modes', m, MODES.join(', '));
  if (!WORKLOADS.includes(flags.workload as Workload)) throw new ConfigError('--workload', flags.workload, WORKLOADS.join(' | '));
  if (flags.redis !== undefined) parseAddress(flags.redis, '--redis');
  let maxSeconds: number | undefined;
  if (flags.maxSeconds !== undefined) {
    maxSeconds = Number(flags.maxSeconds);
    if (!(maxSeconds > 0) || !Number.isFinite(maxSeconds)) throw new ConfigError('--max-seconds', flags.maxSeconds, 'a positive number of seconds');
  }
  const options: BenchOptions = {
    links: parseList(flags.links, '--links', LINKS_ACCEPTED),
    modes: modes as Mode[],
    batches: parseIntList(flags.batch, '--batch'),
    workload: flags.workload as Workload,
    n: parsePositiveInt(flags.n, '-n', 100_000_000),
    sizeBytes: parsePositiveInt(flags.size, '--size', 512 * 1024 * 1024),
    repeat: parsePositiveInt(flags.repeat, '--repeat', 10_000),
    warmup: parseNonNegativeInt(flags.warmup, '--warmup', 10_000),
    driverWarmupMs: parseDurationUs(flags.driverWarmup, '--driver-warmup') / 1000,
    keyPrefix: flags.keyPrefix,
    allowNonempty: flags.allowNonempty === true,
    seed: parseNonNegativeInt(flags.seed, '--seed', 2 ** 32 - 1),
    // Only when typed: the library refuses a compensation with no proxy in --links (all direct).
    ...(given('compensate') ? { compensation: benchCompensation(flags.compensate) } : {}),
    ...(flags.redis !== undefined ? { redis: flags.redis } : {}),
    ...(maxSeconds !== undefined ? { maxSeconds } : {}),
  };
  try {
    resolveBenchOptions(options); // links and the rest, checked before anything starts
  } catch (err) {
    throw withTypedValue(err, { '--compensate': flags.compensate });
  }
  return options;
}

/** Runs with progress on stderr and Ctrl-C handling, then prints and writes the report. */
export async function runBenchCommand(options: BenchOptions, out: BenchOutputFlags): Promise<void> {
  const progress = progressPrinter();
  const stop = abortOnStop((quit) => {
    progress.done();
    process.stderr.write(`redis-rtt: stopping after the current wait ${quit}\n`);
  });
  try {
    // Loaded when a run starts, as each command's run and renderers: a bench refused at its flags loads none of them.
    const { runBench } = await import('../workload/bench.js');
    const { emitBenchReport } = await import('./bench-output.js');
    const report = await runBench({ ...options, signal: stop.signal }, progress.onEvent);
    progress.done();
    const written = await emitBenchReport(report, out);
    for (const f of written) process.stderr.write(`redis-rtt: wrote ${f}\n`);
    if (stop.signal.aborted) process.exitCode = stop.exitStatus;
    else if (report.results.some((r) => r.error)) process.exitCode = 1;
  } finally {
    progress.done();
    stop.dispose();
  }
}

/** --client-zones as the cluster bench takes it: at most --zones, its error showing the text typed ("03", not 3). */
function typedClientZones(text: string, zones: number | undefined): number | undefined {
  try {
    return checkClientZones(parsePositiveInt(text, '--client-zones', 16), zones ?? 16);
  } catch (err) {
    throw withTypedValue(err, { '--client-zones': text });
  }
}

/** `bench --cluster`: the cluster bench's own shapes and table (docs/cluster.md). */
async function runClusterBenchCommand(flags: BenchFlags, cmd: Command): Promise<void> {
  const given = (name: string): boolean => cmd.getOptionValueSource(name) === 'cli';
  const zones = flags.zones === undefined ? undefined : checkZones(parsePositiveInt(flags.zones, '--zones', 16));
  if (flags.redis !== undefined) parseAddress(flags.redis, '--redis');
  const clientZones = flags.clientZones === undefined ? undefined : typedClientZones(flags.clientZones, zones);
  const links = given('links') ? parseList(flags.links, '--links', 'links') : undefined;
  // Ctrl-C: stop after the sample in flight, report what finished, exit 130, or 143 after SIGTERM (the run's finally
  // blocks close the proxy and the private cluster); a second Ctrl-C leaves at once.
  const stop = abortOnStop((quit) => process.stderr.write(stoppingAfterSample(quit)));
  const common = {
    upstream: flags.redis,
    n: given('n') ? parsePositiveInt(flags.n, '-n', 100_000_000) : undefined,
    repeat: given('repeat') ? parsePositiveInt(flags.repeat, '--repeat', 10_000) : undefined,
    signal: stop.signal,
    keyPrefix: flags.keyPrefix,
    allowNonempty: flags.allowNonempty === true,
    log: (line: string) => void process.stderr.write(`redis-rtt: ${line}\n`),
  };
  try {
    const report =
      clientZones !== undefined
        ? await (await import('../cluster/bench/client-zone-bench.js')).runClientZoneBench({ ...common, clientZones, zones })
        : await (await import('../cluster/bench/cluster-bench.js')).runClusterBench({ ...common, zones, links, batch: given('batch') ? parsePositiveInt(flags.batch, '--batch', 100_000) : undefined });
    // As the single-node bench: --format table puts the table on stdout, otherwise it goes to stderr.
    const tableTo = flags.format === 'table' ? process.stdout : process.stderr;
    tableTo.write(renderClusterTable(report, { color: colorFor(tableTo) }));
    if (flags.format === 'json') process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    if (flags.json !== undefined) {
      const written = await writeJsonTarget(flags.json, JSON.stringify(report, null, 2) + '\n');
      if (written) process.stderr.write(`redis-rtt: wrote ${written}\n`);
    }
    if (report.interrupted) process.exitCode = stop.exitStatus;
  } finally {
    stop.dispose();
  }
}
