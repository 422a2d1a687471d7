import { rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';

/**
 * Private redis-servers still running, and their temp dirs. If the driver exits without calling
 * stop() (an uncaught error, process.exit in a test), the 'exit' handler kills them so no orphan
 * keeps a port or a socket file. Only synchronous work is possible there, hence SIGKILL + rmSync.
 */
const live = new Map<ChildProcess, string>();
let installed = false;

export function trackChild(child: ChildProcess, dir: string): void {
  live.set(child, dir);
  if (!installed) {
    installed = true;
    process.on('exit', killAllTracked);
  }
}

export function untrackChild(child: ChildProcess): void {
  live.delete(child);
}

/** How many tracked children are alive (for tests). */
export function trackedCount(): number {
  return live.size;
}

function killAllTracked(): void {
  for (const [child, dir] of live) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort at exit
    }
  }
  live.clear();
}
