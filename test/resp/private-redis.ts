import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway redis-server on a unix socket (no TCP port, no persistence), for recording fixtures. */
export interface PrivateRedis {
  socketPath: string;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-resp-'));
  const socketPath = join(dir, 'redis.sock');
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', socketPath, '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 5000;
  while (!(await canConnect(socketPath))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on ${socketPath}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    socketPath,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
