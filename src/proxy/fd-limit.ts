import { readFileSync } from 'node:fs';

/** Descriptors one proxied client costs: its own socket and its upstream socket. */
export const FDS_PER_CLIENT = 2;
/** Descriptors the process needs besides clients: listeners, stdio, the module loader, timers. */
const FDS_RESERVED = 64;
/** Below this many clients at once the start-up note is printed. */
export const WARN_BELOW_CLIENTS = 1000;

/** Soft limit on open files of this process, from /proc (Linux); undefined where it cannot be read. */
export function openFilesLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!m) return undefined;
    return m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
  } catch {
    return undefined;
  }
}

/**
 * A warning when the open-files limit caps concurrent clients below WARN_BELOW_CLIENTS: past it,
 * new clients are accepted and reset at once (libuv's EMFILE handling) with nothing in the log.
 */
export function fdLimitWarning(limit = openFilesLimit()): string | undefined {
  if (limit === undefined || !Number.isFinite(limit)) return undefined;
  const clients = Math.max(0, Math.floor((limit - FDS_RESERVED) / FDS_PER_CLIENT));
  if (clients >= WARN_BELOW_CLIENTS) return undefined;
  return (
    `warning: the open-files limit (ulimit -n) is ${limit}: room for about ${clients} clients at once ` +
    `(${FDS_PER_CLIENT} descriptors each); clients past that are reset on connect. Raise it with \`ulimit -n 8192\``
  );
}
