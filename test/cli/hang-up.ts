import { spawn } from 'node:child_process';

/**
 * Runs a command on a real terminal (a pty from python3's pty module) and closes the terminal once
 * the command has printed `marker`: the kernel hangs it up, as when a terminal window or an ssh
 * session goes. The command is the session leader, so it gets the SIGHUP, and writes to the
 * terminal fail from then on (EIO), as they do for a process whose terminal closed.
 */
const HANG_UP = `
import json, os, pty, sys, time
marker = sys.argv[1].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
seen = b''
deadline = time.time() + 20
while marker not in seen and time.time() < deadline:
    try:
        seen += os.read(fd, 4096)
    except OSError:
        break
os.close(fd)
_, status = os.waitpid(pid, 0)
print(json.dumps({
    'seen': marker in seen,
    'code': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
    'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
    'output': seen.decode(errors='replace'),
}))
`;

export interface HungUpRun {
  /** Whether the marker was printed before the terminal was closed (else it closed at the 20 s bound). */
  seen: boolean;
  code: number | null;
  /** The number of the signal that ended the command (6: SIGABRT), or null when it exited. */
  signal: number | null;
  /** What the command printed on the terminal before it closed. */
  output: string;
}

/** `argv` on a terminal that hangs up once `marker` shows in its output; resolves when the command has ended. */
export function runUntilHangUp(argv: string[], marker: string, env: NodeJS.ProcessEnv = process.env): Promise<HungUpRun> {
  const child = spawn('python3', ['-c', HANG_UP, marker, ...argv], { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(out) as HungUpRun) : reject(new Error(`python3 pty runner exited ${code}: ${out}`))));
  });
}
