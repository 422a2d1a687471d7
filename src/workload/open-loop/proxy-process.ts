import { request } from 'node:http';
import { CLI_PATH, spawnServerChild, type ServerChild } from '../../calibrate/server-child.js';
import { ConfigError } from '../../errors.js';
import type { LinkSpec } from '../../link/link-spec.js';
import { parseAddress } from '../address.js';
import type { BenchOptions } from '../options.js';

/** A link's proxy in a process of its own: where it listens, and its round-trip counter over HTTP. */
export interface ProxyProcess {
  host: string;
  port: number;
  /** The proxy's round trips so far (GET /stats on its control endpoint). */
  roundTrips(): Promise<number | null>;
  /** The child's CPU so far, microseconds (undefined where /proc is missing). */
  cpuUs(): number | undefined;
  close(): Promise<void>;
}

/** `redis-rtt proxy` flags for a link spec (the same grammar the CLI parses back). */
export function proxyArgs(spec: LinkSpec, upstream: string, seed: number, compensation: NonNullable<BenchOptions['compensation']>): string[] {
  const u = spec.update;
  const args = ['proxy', '--upstream', upstream, '--listen', '127.0.0.1:0', '--control', '127.0.0.1:0', '--seed', String(seed)];
  if (u.rttUs !== undefined) args.push('--rtt', `${u.rttUs}us`);
  if (u.upUs !== undefined) args.push('--up', `${u.upUs}us`);
  if (u.downUs !== undefined) args.push('--down', `${u.downUs}us`);
  if (u.jitterUs !== undefined) args.push('--jitter', `${u.jitterUs}us`);
  if (u.jitterDist !== undefined) args.push('--jitter-dist', u.jitterDist);
  if (u.bandwidthBps !== undefined) args.push('--bandwidth', `${u.bandwidthBps}bit`);
  if (typeof compensation === 'object') throw new ConfigError('--compensate', 'a calibrate table', 'off, auto or a duration with --proxy-process');
  args.push('--compensate', compensation === 'off' ? '0' : compensation === 'auto' ? 'auto' : `${compensation}us`);
  return args;
}

/**
 * Starts the proxy as a child process, so the driver's event loop keeps the schedule alone and the
 * operating system gives the two their own share of the cores.
 */
export async function startProxyProcess(spec: LinkSpec, upstream: string, seed: number, compensation: NonNullable<BenchOptions['compensation']>): Promise<ProxyProcess> {
  let control = '';
  const child: ServerChild = await spawnServerChild(
    [CLI_PATH, ...proxyArgs(spec, upstream, seed, compensation)],
    (line) => {
      const info = JSON.parse(line) as { listen?: unknown; control?: unknown };
      control = String(info.control);
      const listen = parseAddress(String(info.listen), "the proxy's listening line");
      if ('path' in listen) throw new Error(`the proxy listens on ${listen.path}, not TCP`);
      return listen;
    },
    'redis-rtt proxy',
  );
  return {
    host: child.host,
    port: child.port,
    roundTrips: async () => {
      const stats = (await getJson(`http://${control}/stats`)) as { totals?: { roundTrips?: number } };
      return typeof stats.totals?.roundTrips === 'number' ? stats.totals.roundTrips : null;
    },
    cpuUs: () => child.cpuUs(),
    close: () => child.close(),
  };
}

function getJson(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}
