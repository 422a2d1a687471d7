import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Ties a private redis-server's life to this process, however this process ends.
 *
 * The 'exit' handler (tracked-children.ts) covers process.exit() and a drained event loop, but not
 * SIGTERM or SIGINT without a handler (Node dies without running it), nor SIGKILL, the OOM
 * killer or a test runner's timeout; and a library must not install signal handlers of its own
 * over the application's. So each server gets a watchdog: a tiny `sh`, in its own session (a
 * Ctrl-C to our process group does not reach it), whose stdin is a pipe from us. We never write
 * to it; when this process ends for any reason the kernel closes our end, `read` returns, and the
 * watchdog SIGKILLs the server (no persistence: nothing to save) and removes its temp dir.
 * stop() kills the watchdog first, so it never acts on a pid that has been reused.
 */
const SCRIPT = 'read -r _; kill -KILL "$1" 2>/dev/null; rm -rf -- "$2"';

export interface Watchdog {
  readonly pid: number;
  /** Stops watching (the caller stops the server itself). Idempotent. */
  disarm(): void;
}

export function startWatchdog(serverPid: number, dir: string): Watchdog {
  const child: ChildProcess = spawn('sh', ['-c', SCRIPT, 'redis-rtt-watchdog', String(serverPid), dir], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  child.on('error', () => undefined); // no sh: the 'exit' handler still covers the common cases
  // Neither the watchdog nor its pipe may keep our event loop alive.
  child.unref();
  child.stdin?.on('error', () => undefined);
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  let armed = true;
  return {
    pid: child.pid ?? -1,
    disarm: () => {
      if (!armed) return;
      armed = false;
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
      child.stdin?.destroy();
    },
  };
}
