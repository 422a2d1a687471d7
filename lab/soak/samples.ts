/** What the soak run samples in its own process (the proxy's process) every few seconds. */
export interface SoakSample {
  atS: number;
  rssBytes: number;
  heapUsedBytes: number;
  activeConnections: number;
  commands: number;
  /** process.getActiveResourcesInfo() counted by type (TCPSocketWrap, Timeout, ...). */
  handles: Record<string, number>;
}

export function countHandles(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1;
  return out;
}

/** Per type: after - before, only the types that changed. */
export function handleDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[k] ?? 0) - (before[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

export const MiB = 1024 * 1024;

export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

/** One line per sample, for the time series the summary is read from. */
export function renderSample(s: SoakSample): string {
  return (
    `t=${String(s.atS).padStart(4)}s rss=${mib(s.rssBytes).padStart(10)} heap=${mib(s.heapUsedBytes).padStart(10)} ` +
    `active=${String(s.activeConnections).padStart(4)} commands=${s.commands} sockets=${s.handles.TCPSocketWrap ?? 0}`
  );
}
