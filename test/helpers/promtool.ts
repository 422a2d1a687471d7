import { spawnSync } from 'node:child_process';

/**
 * `promtool check metrics` on an exposition (Debian's `prometheus` package; .ci/run installs it):
 * status 0 and no output when Prometheus finds nothing wrong.
 */
export function promtoolCheck(text: string): { status: number | null; output: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool not runnable (install Debian's prometheus package): ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}
