import { createRequire } from 'node:module';
import os from 'node:os';
import { VERSION } from '../version.js';
import type { Environment, Method } from './types.js';

function ioredisVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    return (require('ioredis/package.json') as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function describeEnvironment(redisVersion: string, startedAt: Date): Environment {
  const cpus = os.cpus();
  return {
    node: process.version,
    redis: redisVersion,
    ioredis: ioredisVersion(),
    redisRtt: VERSION,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    startedAt: startedAt.toISOString(),
  };
}

export function describeMethod(repeat: number, warmup: number): Method {
  return {
    repeat,
    warmup,
    order: 'rotated',
    timing:
      'process.hrtime from preparing the first command to receiving the last reply, on one reused connection ' +
      'per link; resetting the keys, preloading, INFO and checking every reply happen outside the timing',
    proxies: 'own-process',
  };
}
