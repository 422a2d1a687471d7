import { startSingleNodeProxy } from '../../../src/proxy/index.js';
import type { StatsSnapshot } from '../../../src/stats/types.js';
import { startCliProxy } from './cli-proxy.js';
import { openFilesSoftLimit } from './proc.js';

/** A proxy under load, wherever it runs: stats and close work the same for both. */
export interface LoadTarget {
  host: string;
  port: number;
  /** 'in-process' or 'child (ulimit -n N)'. */
  where: string;
  stats(): Promise<StatsSnapshot>;
  close(): Promise<void>;
}

/** Open files the proxy needs per client: the client socket and its upstream socket. */
export const FDS_PER_CLIENT = 2;
/** Head room for the test process's own sockets, pipes, the control endpoint, vitest's IPC. */
export const FD_HEADROOM = 256;

/**
 * Starts a proxy able to hold `clients` connections at once. In this process when its open-files
 * limit allows (the proxy needs two descriptors per client); otherwise as `redis-rtt proxy` in a
 * child whose shell raises `ulimit -n` first. REDIS_RTT_LOAD_CHILD=1 forces the child.
 */
export async function startLoadTarget(upstream: string, rttUs: number, clients: number): Promise<LoadTarget> {
  const need = clients * FDS_PER_CLIENT + FD_HEADROOM;
  if (openFilesSoftLimit() >= need && process.env.REDIS_RTT_LOAD_CHILD !== '1') {
    const p = await startSingleNodeProxy({ upstream, link: { rttUs }, log: () => undefined });
    return {
      host: p.host!,
      port: p.port!,
      where: `in-process (ulimit -n ${openFilesSoftLimit()})`,
      stats: async () => p.stats(),
      close: () => p.close(),
    };
  }
  const openFiles = Math.max(need * 2, 8192);
  const p = await startCliProxy(['--upstream', upstream, '--control', '127.0.0.1:0', '--rtt', `${rttUs}us`], { openFiles });
  return {
    host: p.host,
    port: p.port,
    where: `child (ulimit -n ${openFiles})`,
    stats: () => p.stats(),
    close: async () => {
      await p.stop('SIGTERM');
    },
  };
}
