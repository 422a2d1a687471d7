import { readdirSync, readFileSync } from 'node:fs';

export const MiB = 1024 * 1024;

/** Memory of a process as the kernel sees it, in bytes (from /proc/<pid>/status). */
export interface ProcMemory {
  /** Resident set size now. */
  rssBytes: number;
  /** Peak resident set size since the process started (VmHWM). */
  hwmBytes: number;
}

export function procMemory(pid: number): ProcMemory {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(m[1]) * 1024;
  };
  return { rssBytes: kib('VmRSS'), hwmBytes: kib('VmHWM') };
}

/** Soft limit on open files of this process ("Max open files" in /proc/self/limits). */
export function openFilesSoftLimit(): number {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  if (!m) return 1024;
  return m[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(m[1]);
}

/** Open file descriptors of a process right now. */
export function openFdCount(pid: number | 'self' = 'self'): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}
