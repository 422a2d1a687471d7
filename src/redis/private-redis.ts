import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, RedisSpawnError } from '../errors.js';
import { checkMsOption, keysOf, refuseUnknownKeys } from '../validation/known-keys.js';
import { trackChild, untrackChild } from './tracked-children.js';
import { findFreePort } from './free-port.js';
import { isRunning, sleep, waitForExit } from './process-wait.js';
import { versionFromInfo } from './info.js';
import type tls from 'node:tls';
import type { Endpoint } from '../endpoint.js';
import { rawCommands } from './raw-command.js';
import { startWatchdog, type Watchdog } from './watchdog.js';
import type { TlsFiles } from './tls-certs.js';
import { privateServerPlan } from './server-args.js';

export interface PrivateRedisOptions {
  /** TCP on 127.0.0.1 (a free port) or a unix socket in the private dir. @default 'tcp' */
  transport?: 'tcp' | 'unix';
  /** The redis-server binary. @default $REDIS_SERVER, else 'redis-server' on PATH */
  serverPath?: string;
  /** How long to wait for the first PONG. @default 5000 */
  readyTimeoutMs?: number;
  /** How long stop() waits for a clean exit before SIGKILL. @default 3000 */
  stopTimeoutMs?: number;
  /**
   * Extra config appended to the command line, e.g. ['--maxmemory', '10mb']. A `--requirepass X`
   * here is moved into a config file (mode 0600, in the private dir) so the password is not on
   * redis-server's command line for `ps` to show. @default []
   */
  args?: string[];
  /**
   * Serve TLS only (`--port 0 --tls-port PORT`, tcp transport) with a throwaway CA and a server
   * certificate for localhost / 127.0.0.1 made in the private dir; `{ clientAuth: true }` also
   * makes a client certificate and has Redis require one (`--tls-auth-clients yes`); `{ files }`
   * uses certificates made before (a cluster's nodes share one CA). @default false
   */
  tls?: boolean | { clientAuth?: boolean; files?: TlsFiles };
  /**
   * Run as a Sentinel (`redis-server FILE --sentinel`): Sentinel rewrites its config file as it
   * learns the topology, so one starts empty in the private dir, first on the command line. Give
   * the `--sentinel monitor ...` lines in `args`. @default false
   */
  sentinel?: boolean;
}

export const DEFAULT_PRIVATE_REDIS = {
  transport: 'tcp',
  readyTimeoutMs: 5000,
  stopTimeoutMs: 3000,
} as const;

export interface PrivateRedis {
  host?: string;
  port?: number;
  socketPath?: string;
  /** The certificates, when started with `tls`: trust `caFile`; present `clientCertFile`/`clientKeyFile` for mTLS. */
  readonly tls?: TlsFiles & { clientAuth: boolean };
  /** "127.0.0.1:PORT" or "unix:/path". */
  readonly address: string;
  /** redis_version of the running server. */
  readonly version: string;
  readonly pid: number;
  /** Everything the server wrote to stdout and stderr (its log goes to stdout), last 64 KiB. */
  stderr(): string;
  /** Stops the server (SHUTDOWN NOSAVE, then SIGKILL after a timeout) and removes its dir. Idempotent. */
  stop(): Promise<void>;
  /** stop(), for `await using redis = await startPrivateRedis()`. */
  [Symbol.asyncDispose](): Promise<void>;
  /** Sends a signal without cleaning up, for fault tests. @default 'SIGKILL' */
  kill(signal?: NodeJS.Signals): void;
  /** Starts the server again on the same port or socket (after kill() or while running). */
  restart(): Promise<void>;
}

// One line, because it is often the first thing a new user reads (the demo needs nothing else).
const INSTALL_HINT =
  'install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis; ' +
  'Fedora: dnf install redis) or set REDIS_SERVER to its path';
const OUTPUT_LIMIT = 64 * 1024;
const POLL_INTERVAL_MS = 20;
const PORT_ATTEMPTS = 3;

const PRIVATE_REDIS_KEYS = keysOf<PrivateRedisOptions>()({
  transport: true, serverPath: true, readyTimeoutMs: true, stopTimeoutMs: true, args: true, tls: true, sentinel: true,
});

/** Spawns a private redis-server without persistence and resolves once it answers PING. */
export async function startPrivateRedis(opts: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  refuseUnknownKeys(opts, PRIVATE_REDIS_KEYS, 'startPrivateRedis()');
  const transport = opts.transport ?? DEFAULT_PRIVATE_REDIS.transport;
  // Any other value started a unix-socket Redis, silently (the type says so; JavaScript does not).
  if (transport !== 'tcp' && transport !== 'unix') throw new ConfigError('transport', transport, "'tcp' or 'unix'");
  // A string spread into one argument per character (`args: '--maxmemory 1mb'`): redis-server's FATAL CONFIG
  // FILE ERROR as a RedisSpawnError, not the option that caused it; `tls: 'yes'` was taken as true.
  if (opts.args !== undefined && !(Array.isArray(opts.args) && opts.args.every((a) => typeof a === 'string'))) {
    throw new ConfigError('args', opts.args, 'an array of strings, one redis-server argument each, like ["--maxmemory", "1mb"]');
  }
  if (opts.tls !== undefined && typeof opts.tls !== 'boolean' && (typeof opts.tls !== 'object' || opts.tls === null)) {
    throw new ConfigError('tls', opts.tls, 'true, false, or { clientAuth, files }');
  }
  if (opts.tls && transport !== 'tcp') throw new ConfigError('tls', opts.tls, "false with transport 'unix' (TLS needs the tcp transport)");
  // A bad timeout failed the start as if redis-server had (`did not answer PING within -1 ms`).
  if (opts.readyTimeoutMs !== undefined) checkMsOption('readyTimeoutMs', opts.readyTimeoutMs);
  if (opts.stopTimeoutMs !== undefined) checkMsOption('stopTimeoutMs', opts.stopTimeoutMs, false, 0);
  if (opts.serverPath !== undefined && (typeof opts.serverPath !== 'string' || opts.serverPath === '')) {
    throw new ConfigError('serverPath', opts.serverPath, 'the path of a redis-server binary');
  }
  if (opts.sentinel !== undefined && typeof opts.sentinel !== 'boolean') throw new ConfigError('sentinel', opts.sentinel, 'true or false');
  const serverPath = opts.serverPath ?? process.env.REDIS_SERVER ?? 'redis-server';
  const dir = await mkdtemp(join(tmpdir(), 'redis-rtt-'));
  try {
    for (let attempt = 1; ; attempt++) {
      const port = transport === 'tcp' ? await findFreePort() : 0;
      const server = new SpawnedRedis(serverPath, dir, transport, port, opts);
      try {
        await server.spawnUntilReady();
        return server;
      } catch (err) {
        // Another process can take the port between findFreePort() and redis binding it.
        const raced = err instanceof RedisSpawnError && /Address already in use/i.test(err.message);
        if (!raced || attempt >= PORT_ATTEMPTS) throw err;
      }
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

class SpawnedRedis implements PrivateRedis {
  readonly host?: string;
  readonly port?: number;
  readonly socketPath?: string;
  readonly address: string;
  readonly tls?: TlsFiles & { clientAuth: boolean };
  version = '';
  private child: ChildProcess | null = null;
  private output = '';
  private readonly args: string[];
  private readonly endpoint: Endpoint;
  private readonly clientTls: tls.ConnectionOptions | undefined;
  private readonly password: string | undefined;
  private stopped = false;
  private watchdog: Watchdog | undefined;

  constructor(
    private readonly serverPath: string,
    private readonly dir: string,
    transport: 'tcp' | 'unix',
    port: number,
    private readonly opts: PrivateRedisOptions,
  ) {
    const plan = privateServerPlan(dir, transport, port, opts);
    this.args = plan.args;
    this.host = plan.host;
    this.port = plan.port;
    this.socketPath = plan.socketPath;
    this.address = plan.address;
    this.endpoint = plan.endpoint;
    this.tls = plan.tls;
    this.clientTls = plan.clientTls;
    this.password = plan.password;
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  stderr(): string {
    return this.output;
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    // A dead server's pid can be reused: the watchdog must not act on it later.
    if (signal === 'SIGKILL') this.watchdog?.disarm();
    if (this.child && isRunning(this.child)) this.child.kill(signal);
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new RedisSpawnError('restart() after stop(): start a new private redis instead');
    this.watchdog?.disarm();
    await this.stopProcess();
    await this.spawnUntilReady();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.watchdog?.disarm();
    await this.stopProcess();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Spawns the server and polls PING until it answers, it exits, or the deadline passes. */
  async spawnUntilReady(): Promise<void> {
    const child = await this.spawnChild();
    const timeoutMs = this.opts.readyTimeoutMs ?? DEFAULT_PRIVATE_REDIS.readyTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    while (isRunning(child)) {
      if (await this.answersPing()) {
        this.version = (await this.readVersion()) ?? 'unknown';
        return;
      }
      if (Date.now() >= deadline) {
        this.watchdog?.disarm();
        child.kill('SIGKILL');
        await waitForExit(child, 1000);
        untrackChild(child);
        throw new RedisSpawnError(`redis-server (${this.serverPath}) did not answer PING within ${timeoutMs} ms`, this.output);
      }
      await sleep(POLL_INTERVAL_MS);
    }
    this.watchdog?.disarm();
    await waitForExit(child, 1000);
    untrackChild(child);
    const how = child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;
    throw new RedisSpawnError(`redis-server (${this.serverPath}) ${how} before it was ready`, this.output);
  }

  private spawnChild(): Promise<ChildProcess> {
    return new Promise((resolve, reject) => {
      // Its own session, like its watchdog's (which still ends it with us): a terminal's Ctrl-C to our
      // group would shut it down under the sample `bench` promised to finish.
      const child = spawn(this.serverPath, this.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const capture = (chunk: Buffer): void => {
        this.output = (this.output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
      };
      child.stdout?.on('data', capture);
      child.stderr?.on('data', capture);
      child.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') {
          reject(new RedisSpawnError(`redis-server not found at "${this.serverPath}"; ${INSTALL_HINT}`));
        } else {
          reject(new RedisSpawnError(`could not start redis-server (${this.serverPath}): ${err.message}`, this.output));
        }
      });
      child.once('spawn', () => {
        this.child = child;
        trackChild(child, this.dir);
        if (child.pid !== undefined) this.watchdog = startWatchdog(child.pid, this.dir);
        resolve(child);
      });
    });
  }

  private async answersPing(): Promise<boolean> {
    try {
      const [reply] = await rawCommands(this.endpoint, [['PING']], 500, this.clientTls);
      // NOAUTH means it is up and asking for the password we configured.
      return reply !== undefined && (reply.text === 'PONG' || (reply.type === '-' && /^NOAUTH/.test(reply.text ?? '')));
    } catch {
      return false;
    }
  }

  private async readVersion(): Promise<string | undefined> {
    const fromLog = /Redis version=([^,\s]+)/.exec(this.output)?.[1];
    if (fromLog) return fromLog;
    try {
      const cmds = this.password !== undefined ? [['AUTH', this.password], ['INFO', 'server']] : [['INFO', 'server']];
      const replies = await rawCommands(this.endpoint, cmds, 1000, this.clientTls);
      return versionFromInfo(replies.at(-1)?.text ?? '');
    } catch {
      return undefined;
    }
  }

  /** SHUTDOWN NOSAVE (SIGTERM if that cannot be sent), SIGKILL after the timeout. */
  private async stopProcess(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (isRunning(child)) {
      const cmds = this.password !== undefined ? [['AUTH', this.password], ['SHUTDOWN', 'NOSAVE']] : [['SHUTDOWN', 'NOSAVE']];
      try {
        await rawCommands(this.endpoint, cmds, 1000, this.clientTls);
      } catch {
        if (isRunning(child)) child.kill('SIGTERM');
      }
      const timeoutMs = this.opts.stopTimeoutMs ?? DEFAULT_PRIVATE_REDIS.stopTimeoutMs;
      if (!(await waitForExit(child, timeoutMs))) {
        child.kill('SIGKILL');
        await waitForExit(child, 2000);
      }
    } else {
      await waitForExit(child, 2000);
    }
    untrackChild(child);
  }
}
