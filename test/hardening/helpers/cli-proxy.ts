import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { StatsSnapshot } from '../../../src/stats/types.js';
import { controlRequest } from './http.js';

/** The built CLI (REDIS_RTT_TEST_BIN: another build, to measure before/after): tests that spawn it need `npm run build` first. */
export const BIN = process.env.REDIS_RTT_TEST_BIN ?? resolve(import.meta.dirname, '../../../bin/redis-rtt.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/redis-rtt.js ...args` to completion (for flag validation tests), in `cwd` if given. */
export function runCli(args: string[], timeoutMs = 20_000, cwd?: string): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolvePromise) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/**
 * runCli for each argv, `limit` processes at a time, the results in argv's order: for CLI runs that exit at their
 * flags or their first look at the upstream, which a test would otherwise wait out one after the other.
 */
export async function runClis(argvs: string[][], limit = 4): Promise<CliRun[]> {
  const results: CliRun[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < argvs.length) {
      const i = next++;
      results[i] = await runCli(argvs[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, argvs.length) }, worker));
  return results;
}

/** What `redis-rtt proxy` prints on stdout once it listens. */
export interface ListeningLine {
  event: 'listening';
  listen: string;
  control: string | null;
  upstream: string;
}

export interface CliProxy {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly line: ListeningLine;
  readonly host: string;
  readonly port: number;
  /** Everything the proxy wrote to stderr so far. */
  stderr(): string;
  stdout(): string;
  /** GET /stats from its control endpoint (needs --control). */
  stats(token?: string): Promise<StatsSnapshot>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface CliProxyOptions {
  /** Raise the open-files soft limit in the proxy's shell first (`ulimit -n`). */
  openFiles?: number;
  /** How long to wait for the listening line. @default 15000 */
  startTimeoutMs?: number;
}

/** Spawns `redis-rtt proxy ...args` and resolves once it printed its listening line. */
export async function startCliProxy(args: string[], options: CliProxyOptions = {}): Promise<CliProxy> {
  const argv = ['proxy', ...args];
  // `exec` keeps the pid the node process's own, so /proc/<pid> is the proxy and not bash.
  const child =
    options.openFiles === undefined
      ? spawn(process.execPath, [BIN, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -n ${options.openFiles} && exec "$0" "$@"`, process.execPath, BIN, ...argv], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('close', (code, signal) => r({ code, signal })),
  );
  const line = await new Promise<ListeningLine>((resolveLine, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`proxy did not print its listening line within ${options.startTimeoutMs ?? 15000} ms\n${err}`));
    }, options.startTimeoutMs ?? 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolveLine(JSON.parse(out.slice(0, nl)) as ListeningLine);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`proxy exited (${code ?? signal}) before listening\n${err}`));
    });
  });
  const i = line.listen.lastIndexOf(':');
  return {
    child,
    pid: child.pid!,
    line,
    host: line.listen.slice(0, i),
    port: Number(line.listen.slice(i + 1)),
    stderr: () => err,
    stdout: () => out,
    stats: async (token?: string) => {
      if (!line.control) throw new Error('proxy started without --control');
      const r = await controlRequest(line.control, 'GET', '/stats', { token });
      if (r.status !== 200) throw new Error(`GET /stats: ${r.status} ${r.body}`);
      return JSON.parse(r.body) as StatsSnapshot;
    },
    stop: async (signal: NodeJS.Signals = 'SIGINT') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
