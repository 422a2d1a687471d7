import type { Redis } from 'ioredis';
import { versionFromInfo } from '../redis/info.js';

/**
 * Microseconds Redis spent executing commands, summed over INFO commandstats. The INFO that reads
 * it is excluded: its own time shows up in the next reading, not in the work we measure.
 */
export async function serverUsec(admin: Redis): Promise<number> {
  return sumCommandUsec(await admin.info('commandstats'));
}

export function sumCommandUsec(info: string): number {
  let total = 0;
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):.*?\busec=(\d+)/.exec(line.trim());
    if (m && m[1] !== 'info') total += Number(m[2]);
  }
  return total;
}

/** redis_version from INFO server. */
export async function redisVersion(admin: Redis): Promise<string> {
  const info = await admin.info('server');
  return versionFromInfo(info) ?? 'unknown';
}
