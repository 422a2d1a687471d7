/**
 * The sentences around the numbers: what machine ran them and how a sample was timed. Shared by
 * the terminal footer, markdown and HTML so the three say the same thing.
 */
import type { Environment, Method } from '../results/types.js';

export function environmentLine(env: Environment): string {
  const cpus = `${env.cpus} CPU${env.cpus === 1 ? '' : 's'}`;
  return (
    `node ${env.node}, redis ${env.redis}, ioredis ${env.ioredis}, redis-rtt ${env.redisRtt}; ` +
    `${cpus} (${env.cpuModel}), ${env.platform}; started ${env.startedAt}`
  );
}

/** Environment as label/value pairs, for a definition list. */
export function environmentPairs(env: Environment): Array<[string, string]> {
  return [
    ['node', env.node],
    ['redis', env.redis],
    ['ioredis', env.ioredis],
    ['redis-rtt', env.redisRtt],
    ['CPUs', `${env.cpus} x ${env.cpuModel}`],
    ['platform', env.platform],
    ['started', env.startedAt],
  ];
}

/** How the numbers were taken, one sentence per line. */
export function methodLines(method: Method): string[] {
  const reps = `${method.repeat} timed repetition${method.repeat === 1 ? '' : 's'}`;
  const warm = `${method.warmup} warm-up${method.warmup === 1 ? '' : 's'}`;
  const order =
    method.order === 'rotated'
      ? 'configuration order rotated by one each repetition, so no configuration always runs first or last'
      : `configuration order: ${String(method.order)}`;
  const driver = method.driverWarmup
    ? [
        `before any sample, the client ran ${method.driverWarmup.shapes === 1 ? 'the one shape' : `each of the ${method.driverWarmup.shapes} shapes`} straight to Redis ` +
          `(${method.driverWarmup.ops} commands in ${method.driverWarmup.ms} ms, not timed), so V8 had settled its code.`,
      ]
    : [];
  return [
    `${reps} per configuration after ${warm}; ${order}.`,
    ...driver,
    `timing: ${method.timing}.`,
    'median ms = median of the repetitions; range = fastest-slowest repetition; ops/s = N / median.',
    'waits = ceil(N / batch), the round trips the arithmetic predicts; round trips and bytes up/down are counted ' +
      'by the proxy per sample (none on direct: no proxy); K = 1000 bytes.',
    'model ms = waits x link RTT + the same configuration on local; err = (median - model) / model.',
    'p50/p99/max us = latency per wait (one batch from send to last reply); where the time went = shares of the ' +
      'median: link = round trips x RTT, srv = Redis commandstats usec, ' +
      (method.proxies === 'own-process'
        ? 'cpu = the driver\'s user+system CPU alone (each link\'s proxy runs in a process of its own), prx = that ' +
          'proxy process\'s CPU (both overlap link waits); '
        : 'cpu = driver user+system CPU (in-process proxies included, so it overlaps link waits and can pass 100%); ') +
      'JSON breakdown.otherMs = the rest, clamped at 0.',
  ];
}
