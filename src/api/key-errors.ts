/**
 * startProxy, startSentinelProxy, startToxiproxyServer, runBench, runOpenLoopBench and runCalibrate as the package exports
 * them: a ConfigError names the option key the caller wrote (`highWaterBytes`, `linkSchedule.steps[0].at`,
 * `sizeBytes`), as docs/api.md says. The checks inside name the CLI flag (`--high-water`, `--size`), which is what the
 * CLI's user typed: the CLI calls the inner functions, so its messages stay as they are.
 */
import { runCalibrate as runCalibrateNamingFlags, type CalibrateOptions } from '../calibrate/run.js';
import { startProxy as startProxyNamingFlags } from '../cluster/start-proxy.js';
import { ConfigError } from '../errors.js';
import { optionFlag, PROXY_OPTIONS } from '../proxy/options-schema.js';
import type { ProxyOptions, RedisRttProxy } from '../proxy/types.js';
import { SENTINEL_FLAGS, SENTINEL_OPTIONS, type SentinelProxyOptions } from '../sentinel/options.js';
import type { RedisRttSentinelProxy } from '../sentinel/sentinel-proxy.js';
import { startSentinelProxy as startSentinelProxyNamingFlags } from '../sentinel/start-sentinel.js';
import {
  startToxiproxyServer as startToxiproxyServerNamingFlags,
  type ToxiproxyServer,
  type ToxiproxyServerOptions,
} from '../toxiproxy-api/toxiproxy-server.js';
import type { BenchReport, CalibrateReport } from '../results/types.js';
import { LISTEN_TLS_FLAGS, UPSTREAM_TLS_FLAGS } from '../tls/options.js';
import { runBench as runBenchNamingFlags } from '../workload/bench.js';
import { runOpenLoopBench as runOpenLoopBenchNamingFlags, type OpenLoopProgress } from '../workload/open-loop/bench.js';
import type { OpenLoopOptions } from '../workload/open-loop/options.js';
import type { OpenLoopReport } from '../workload/open-loop/types.js';
import type { BenchOptions } from '../workload/options.js';
import type { BenchProgress } from '../workload/runner.js';

/** Each flag a proxy's start-up check names, and the option key it stands for. */
const PROXY_KEY_OF_FLAG = new Map<string, string>([
  ...Object.keys(PROXY_OPTIONS.shape).map((key) => [optionFlag([key]), key] as const),
  ...Object.entries(SENTINEL_FLAGS).map(([key, flag]) => [flag, key] as const),
  ...Object.entries(UPSTREAM_TLS_FLAGS).map(([key, flag]) => [flag, `upstreamTls.${key}`] as const),
  ...Object.entries(LISTEN_TLS_FLAGS).map(([key, flag]) => [flag, `listenTls.${key}`] as const),
  // Named by their parsers' default flag argument rather than a table: the same keys, read as flags.
  ['--upstream-tls', 'upstreamTls'],
  ['--listen-tls', 'listenTls'],
  ['--tls-max-version', 'listenTls.maxVersion'],
  ['--allow-host', 'allowHosts'],
  ['--node-link', 'nodeLinks'],
  ['--same-zone-link', 'sameZoneLink'],
  ['--cross-zone-link', 'crossZoneLink'],
]);

/** The flags both kinds of bench run share (src/cli/bench.ts), by the option key each sets. */
const BENCH_RUN_FLAGS: [flag: string, key: string][] = [
  ['--redis', 'redis'],
  ['--key-prefix', 'keyPrefix'],
  ['--links', 'links'],
  ['--modes', 'modes'],
  ['--seed', 'seed'],
  ['--compensate', 'compensation'],
];

/** runBench's flags, by the option key each sets. */
const BENCH_KEY_OF_FLAG = new Map<string, string>([
  ...BENCH_RUN_FLAGS,
  ['--batch', 'batches'],
  ['--workload', 'workload'],
  ['-n', 'n'],
  ['--size', 'sizeBytes'],
  ['--repeat', 'repeat'],
  ['--warmup', 'warmup'],
  ['--driver-warmup', 'driverWarmupMs'],
  ['--max-seconds', 'maxSeconds'],
]);

/** runOpenLoopBench's flags (bench --rate/--clients: src/cli/bench-open-loop.ts), by the option key each sets. */
const OPEN_LOOP_KEY_OF_FLAG = new Map<string, string>([
  ...BENCH_RUN_FLAGS,
  ['--clients', 'clients'],
  ['--rate', 'rates'],
  ['--duration', 'durationUs'],
  ['--arrival', 'arrival'],
  ['--batch-window', 'batchWindowsUs'],
  ['--batch', 'maxBatch'],
  ['--slo', 'sloUs'],
]);

/** runCalibrate's flags (src/cli/calibrate.ts), by the option key each sets. */
const CALIBRATE_KEY_OF_FLAG = new Map<string, string>([
  ['--rtts', 'rttsUs'],
  ['--samples', 'samples'],
  ['--rounds', 'rounds'],
  ['--upstream', 'upstream'],
  ['--upstream-tls', 'upstreamTls'],
  ...Object.entries(UPSTREAM_TLS_FLAGS).map(([key, flag]) => [flag, `upstreamTls.${key}`] as const),
]);

/** startToxiproxyServer's flags (src/cli/server-command.ts), by the option key each sets. */
const SERVER_KEY_OF_FLAG = new Map<string, string>([
  ['--api', 'api'],
  ['--api-token', 'apiToken'],
  ['--allow-host', 'allowHosts'],
  ['--config', 'config'],
  ['--seed', 'seed'],
]);

/**
 * `--link-schedule steps[0].at` -> `linkSchedule.steps[0].at`, `--rtt-series line 2` -> `rttSeries line 2`
 * (a line of the text, not a key under it); undefined when no flag leads it.
 */
function keyOf(flag: string, keys: ReadonlyMap<string, string>): string | undefined {
  const space = flag.indexOf(' ');
  const head = space < 0 ? flag : flag.slice(0, space);
  const key = head.startsWith('-') ? keys.get(head) : undefined;
  if (key === undefined || space < 0) return key;
  const rest = flag.slice(space + 1);
  if (rest.startsWith('[')) return `${key}${rest}`;
  return /^[\w$]+([.[]|$)/.test(rest) ? `${key}.${rest}` : `${key} ${rest}`;
}

async function namingKeys<T>(keys: ReadonlyMap<string, string>, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    // Only a plain ConfigError is renamed: a subclass (ToxicExistsError) keeps its class and its key.
    const key = err instanceof ConfigError && err.constructor === ConfigError ? keyOf(err.flag, keys) : undefined;
    if (key === undefined) throw err;
    throw new ConfigError(key, (err as ConfigError).value, (err as ConfigError).accepts);
  }
}

/**
 * Starts the latency proxy and resolves once it listens (docs/api.md): one listener, or one per node in
 * cluster mode (`cluster: 'auto'` finds a cluster node; cast to RedisRttClusterProxy). A bad option is
 * a ConfigError naming its key.
 */
export function startProxy(options: ProxyOptions): Promise<RedisRttProxy> {
  return namingKeys(PROXY_KEY_OF_FLAG, () => {
    refuseSentinelKeys(options);
    return startProxyNamingFlags(options);
  });
}

/**
 * Sentinel mode has its own start function: startProxy refused `sentinels` as a key it does not
 * know, which told a caller with the right options nothing of where they go.
 */
function refuseSentinelKeys(options: unknown): void {
  if (typeof options !== 'object' || options === null) return;
  for (const key of Object.keys(SENTINEL_OPTIONS)) {
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const shown = key === 'sentinelPassword' ? '(redacted)' : value;
    throw new ConfigError(key, shown, 'startSentinelProxy() for Sentinel mode (sentinels, sentinelMaster and the other sentinel* options); startProxy() takes no Sentinel option');
  }
}

/**
 * Starts a proxy in front of Redis Sentinel and the primary and replicas it knows (docs/sentinel.md):
 * `sentinels` and `sentinelMaster` in place of `upstream`. A bad option is a ConfigError naming its key.
 */
export function startSentinelProxy(options: SentinelProxyOptions): Promise<RedisRttSentinelProxy> {
  return namingKeys(PROXY_KEY_OF_FLAG, () => startSentinelProxyNamingFlags(options));
}

/**
 * Runs the same work in several shapes across links and resolves to the report (what `redis-rtt bench`
 * runs). With no `redis` it spawns a private redis-server and removes it afterwards; with one, it refuses
 * a non-empty database unless allowed and only deletes its own prefixed keys. An abort signal stops it
 * between waits; what finished is returned. A bad option is a ConfigError naming its key.
 */
export function runBench(options: BenchOptions, progress?: (ev: BenchProgress) => void): Promise<BenchReport> {
  // `workloads` and `workload` share the flag: the message names the one given.
  // `?.`: no options at all is refused as runBench()'s, by the run, not as a TypeError here.
  const keys = (options as BenchOptions | undefined)?.workloads === undefined ? BENCH_KEY_OF_FLAG : new Map([...BENCH_KEY_OF_FLAG, ['--workload', 'workloads']]);
  return namingKeys(keys, () => runBenchNamingFlags(options, progress));
}

/**
 * Open-loop runs across links (what `redis-rtt bench --rate` and `--clients` run; docs/open-loop.md): for
 * each link, connection count, shape and window, the rates in ascending order. A bad option is a
 * ConfigError naming its key.
 */
export function runOpenLoopBench(options: OpenLoopOptions, progress?: (ev: OpenLoopProgress) => void): Promise<OpenLoopReport> {
  return namingKeys(OPEN_LOOP_KEY_OF_FLAG, () => runOpenLoopBenchNamingFlags(options, progress));
}

/**
 * Measures PING RTT direct and through the proxy at each RTT, and derives a compensation table (what
 * `redis-rtt calibrate` runs; docs/precision.md). A bad option is a ConfigError naming its key.
 */
export function runCalibrate(options?: CalibrateOptions): Promise<CalibrateReport> {
  return namingKeys(CALIBRATE_KEY_OF_FLAG, () => runCalibrateNamingFlags(options));
}

/**
 * Starts toxiproxy's v2 HTTP API in front of redis-rtt proxies (what `redis-rtt server` runs;
 * docs/toxiproxy.md). A bad option is a ConfigError naming its key.
 */
export function startToxiproxyServer(options?: ToxiproxyServerOptions): Promise<ToxiproxyServer> {
  return namingKeys(SERVER_KEY_OF_FLAG, () => startToxiproxyServerNamingFlags(options));
}
