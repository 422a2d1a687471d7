import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cliArgv } from '../tools/proc.mjs';

/** A server under test in a process of its own: `overhead`'s proxy and bare pipe. */
export interface ServerChild {
  readonly host: string;
  readonly port: number;
  readonly pid: number;
  /** User + system CPU the process has used so far, microseconds; undefined where /proc is missing. */
  cpuUs(): number | undefined;
  close(): Promise<void>;
}

/**
 * Starts `node <args>` and waits for its first stdout line, which `address` turns into where it
 * listens. stderr is kept for the error if it exits or stays silent.
 */
export async function spawnServerChild(
  args: string[],
  address: (firstLine: string) => { host: string; port: number },
  what: string,
  timeoutMs = 20_000,
): Promise<ServerChild> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout! });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address within ${timeoutMs} ms`)), timeoutMs);
      lines.once('line', (line) => {
        clearTimeout(timer);
        resolve(line);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`exited (${signal ?? code}) before listening`));
      });
      child.once('error', reject);
    });
    const at = address(first);
    const pid = child.pid!;
    return {
      ...at,
      pid,
      cpuUs: () => processCpuUs(pid),
      close: () => stop(child, exited),
    };
  } catch (err) {
    await stop(child, exited);
    throw new Error(`${what}: ${(err as Error).message}${stderr ? `; stderr: ${stderr.trim()}` : ''}`);
  }
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s. */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process from /proc/<pid>/stat, microseconds (10 ms resolution). */
export function processCpuUs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of the whole line
  return Number.isFinite(ticks) ? (ticks * 1_000_000) / TICKS_PER_SECOND : undefined;
}

/**
 * Node's arguments that start this tree's CLI (`bin/redis-rtt.js`, run from dist/, found from lab/
 * (tests) or dist-lab/ (npm run lab:*) alike) as its `#!` line does.
 */
export const CLI_ARGV: readonly string[] = cliArgv(findTree(dirname(fileURLToPath(import.meta.url))));

function findTree(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'bin', 'redis-rtt.js'))) return dir;
    if (dirname(dir) === dir) throw new Error(`bin/redis-rtt.js not found above ${from}`);
  }
}
