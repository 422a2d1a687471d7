import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type tls from 'node:tls';
import { ConfigError, RedisSpawnError } from '../errors.js';
import { checkMsOption, keysOf, refuseUnknownKeys } from '../validation/known-keys.js';
import { sleep } from './process-wait.js';
import { startPrivateRedis, type PrivateRedis } from './private-redis.js';
import { rawCommands, rawField, type RawReply } from './raw-command.js';
import { generateTlsFiles, type TlsFiles } from './tls-certs.js';

export interface PrivateSentinelOptions {
  /** Replicas of the primary. @default 2 */
  replicas?: number;
  /** Sentinel processes (`redis-server --sentinel`). @default 3 */
  sentinels?: number;
  /** The name the sentinels monitor the primary by. @default 'mymaster' */
  masterName?: string;
  /** Sentinels that must agree the primary is down. @default a majority of `sentinels` */
  quorum?: number;
  /** down-after-milliseconds: how long a silent primary takes to be judged down. @default 1000 */
  downAfterMs?: number;
  /** failover-timeout: also how long a sentinel waits before it tries the same failover again. @default 5000 */
  failoverTimeoutMs?: number;
  /** How long to wait for the quorum and for every sentinel to see every replica and sentinel. @default 20000 */
  readyTimeoutMs?: number;
  /** The redis-server binary. @default $REDIS_SERVER, else 'redis-server' on PATH */
  serverPath?: string;
  /**
   * TLS only, as a managed deployment has it: every data node and every sentinel serves `--tls-port`
   * (no plaintext port) with `--tls-replication yes` (replication, and the sentinels' links to the
   * nodes and to each other, over TLS too), all with one throwaway CA and certificate (`setup.tls`),
   * and none asks clients for a certificate. @default false
   */
  tls?: boolean;
}

export const DEFAULT_PRIVATE_SENTINEL = {
  replicas: 2,
  sentinels: 3,
  masterName: 'mymaster',
  downAfterMs: 1000,
  failoverTimeoutMs: 5000,
  readyTimeoutMs: 20_000,
} as const;

export interface PrivateSentinel {
  readonly masterName: string;
  /** The primary at start, then its replicas; roles change with failovers, so ask a sentinel. */
  readonly nodes: readonly PrivateRedis[];
  readonly sentinels: readonly PrivateRedis[];
  /** "127.0.0.1:PORT" of each sentinel: what a Sentinel client (or `--sentinel`) is given. */
  readonly sentinelAddresses: readonly string[];
  /** The certificates of a TLS setup: clients (and `--upstream-ca`) trust `caFile`. */
  readonly tls?: TlsFiles;
  /** Stops every process and removes every temp dir. Idempotent. */
  stop(): Promise<void>;
  /** stop(), for `await using sentinel = await startPrivateSentinel()`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const POLL_INTERVAL_MS = 100;

const PRIVATE_SENTINEL_KEYS = keysOf<PrivateSentinelOptions>()({
  replicas: true, sentinels: true, masterName: true, quorum: true, downAfterMs: true, failoverTimeoutMs: true, readyTimeoutMs: true, serverPath: true,
  tls: true,
});

/**
 * Starts a private Sentinel setup: a primary, its replicas (`--replicaof`), and sentinels that
 * monitor it, all redis-server processes on free ports of 127.0.0.1. Resolves once every sentinel
 * reaches the quorum (SENTINEL CKQUORUM) and sees every replica with its link up and every other
 * sentinel. Each process is a startPrivateRedis(): stop() and the exit handlers remove them all.
 */
export async function startPrivateSentinel(opts: PrivateSentinelOptions = {}): Promise<PrivateSentinel> {
  refuseUnknownKeys(opts, PRIVATE_SENTINEL_KEYS, 'startPrivateSentinel()');
  const replicas = opts.replicas ?? DEFAULT_PRIVATE_SENTINEL.replicas;
  const count = opts.sentinels ?? DEFAULT_PRIVATE_SENTINEL.sentinels;
  const name = opts.masterName ?? DEFAULT_PRIVATE_SENTINEL.masterName;
  const quorum = opts.quorum ?? Math.floor(count / 2) + 1;
  // Options, not a server that failed: ConfigError, as every other option of the API.
  if (!Number.isInteger(replicas) || replicas < 0) throw new ConfigError('replicas', replicas, 'a whole number, 0 or more');
  if (!Number.isInteger(count) || count < 1) throw new ConfigError('sentinels', count, 'a whole number of at least 1');
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > count) throw new ConfigError('quorum', quorum, `a whole number from 1 to ${count} (the sentinels)`);
  // Sentinel's events are space-separated (`+switch-master <name> <ip> <port> ...`): a name with a
  // space, or none, is one no client (nor the proxy's rewrite) can read back out of them.
  if (typeof name !== 'string' || !/^\S+$/.test(name)) throw new ConfigError('masterName', name, 'a name with no spaces');
  const downAfterMs = opts.downAfterMs ?? DEFAULT_PRIVATE_SENTINEL.downAfterMs;
  const failoverTimeoutMs = opts.failoverTimeoutMs ?? DEFAULT_PRIVATE_SENTINEL.failoverTimeoutMs;
  const readyTimeoutMs = opts.readyTimeoutMs ?? DEFAULT_PRIVATE_SENTINEL.readyTimeoutMs;
  // redis-server refuses 0 and below (a RedisSpawnError, as if it had not started) and cuts 1.5 to 1.
  for (const [key, ms] of Object.entries({ downAfterMs, failoverTimeoutMs, readyTimeoutMs })) checkMsOption(key, ms, true);
  if (opts.tls !== undefined && typeof opts.tls !== 'boolean') throw new ConfigError('tls', opts.tls, 'true or false');
  const started: PrivateRedis[] = [];
  const tlsDir = opts.tls ? mkdtempSync(join(tmpdir(), 'redis-rtt-sentinel-tls-')) : undefined;
  const stopAll = (): Promise<void> =>
    Promise.all(started.map((p) => p.stop())).then(() => {
      if (tlsDir !== undefined) rmSync(tlsDir, { recursive: true, force: true });
    });
  let files: TlsFiles | undefined;
  const start = async (o: Parameters<typeof startPrivateRedis>[0] & { args: string[] }): Promise<PrivateRedis> => {
    // A sentinel dials the nodes and its peers over TLS only with tls-replication, as replicas dial their primary.
    const secure = files && { tls: { files }, args: [...o.args, '--tls-replication', 'yes'] };
    const p = await startPrivateRedis({ serverPath: opts.serverPath, ...o, ...secure });
    started.push(p);
    return p;
  };
  try {
    if (tlsDir !== undefined) files = generateTlsFiles(tlsDir);
    const clientTls: tls.ConnectionOptions | undefined = files && { ca: readFileSync(files.caFile) };
    // The initial sync without a fork delay (Redis 7 waits 5 s for more replicas by default).
    const dataArgs = ['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0', '--repl-ping-replica-period', '1'];
    const primary = await start({ args: dataArgs });
    const replicaNodes = await Promise.all(Array.from({ length: replicas }, () => start({ args: [...dataArgs, '--replicaof', '127.0.0.1', String(primary.port)] })));
    const monitor = [
      ...['--sentinel', 'monitor', name, '127.0.0.1', String(primary.port), String(quorum)],
      ...['--sentinel', 'down-after-milliseconds', name, String(downAfterMs)],
      ...['--sentinel', 'failover-timeout', name, String(failoverTimeoutMs)],
    ];
    const sentinels = await Promise.all(Array.from({ length: count }, () => start({ sentinel: true, args: monitor })));
    await waitReady(sentinels, name, replicas, readyTimeoutMs, clientTls);
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= stopAll());
    return {
      masterName: name,
      nodes: [primary, ...replicaNodes],
      sentinels,
      sentinelAddresses: sentinels.map((s) => s.address),
      ...(files ? { tls: files } : {}),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function waitReady(sentinels: readonly PrivateRedis[], name: string, replicas: number, timeoutMs: number, secure?: tls.ConnectionOptions): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const problems = await Promise.all(sentinels.map((s) => readinessProblem(s, name, replicas, sentinels.length - 1, secure)));
    const first = problems.find((p) => p !== '');
    if (first === undefined) return;
    if (Date.now() >= deadline) throw new RedisSpawnError(`private sentinel setup not ready within ${timeoutMs} ms: ${first}`);
    await sleep(POLL_INTERVAL_MS);
  }
}

async function readinessProblem(s: PrivateRedis, name: string, replicas: number, others: number, secure?: tls.ConnectionOptions): Promise<string> {
  const cmds = [['SENTINEL', 'CKQUORUM', name], ['SENTINEL', 'REPLICAS', name], ['SENTINEL', 'SENTINELS', name]];
  const [quorum, seen, peers] = await rawCommands({ kind: 'tcp', host: s.host!, port: s.port! }, cmds, 1000, secure).catch((): RawReply[] => []);
  if (quorum?.type !== '+') return `sentinel ${s.address}: CKQUORUM says ${quorum?.text ?? 'nothing'}`;
  const up = (seen?.items ?? []).filter((r) => rawField(r, 'master-link-status') === 'ok' && !/s_down|disconnected/.test(rawField(r, 'flags') ?? ''));
  if (up.length < replicas) return `sentinel ${s.address} sees ${up.length} of ${replicas} replicas with their link up`;
  const peerCount = peers?.items?.length ?? 0;
  return peerCount < others ? `sentinel ${s.address} knows ${peerCount} of ${others} other sentinels` : '';
}
