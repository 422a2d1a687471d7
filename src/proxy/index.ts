import { prepareProxyTls } from '../tls/setup.js';
import { normalizeProxyOptions } from './normalize-options.js';
import { SingleNodeProxy } from './single-node-proxy.js';
import type { NodeStart, ProxyOptions, RedisRttProxy } from './types.js';

export type { ProxyOptions, RedisRttProxy } from './types.js';

export { DEFAULT_HIGH_WATER_BYTES } from './options-schema.js';

/**
 * Starts a single-node proxy between clients and Redis (the public startProxy,
 * src/cluster/start-proxy.ts, adds cluster and Sentinel mode on top of it). Every option is checked first
 * (normalizeProxyOptions: a ConfigError before anything listens), then SingleNodeProxy's start-up
 * steps run:
 *
 *   const p = await startSingleNodeProxy({ upstream: '127.0.0.1:6380', link: { rttUs: 1200 } });
 *   new Redis(p.port, p.host); ...; p.stats().totals.roundTrips; await p.close();
 */
export async function startSingleNodeProxy(input: ProxyOptions, node: NodeStart = {}): Promise<RedisRttProxy> {
  const options = normalizeProxyOptions(input);
  const log = options.log;
  const listenHost = options.listen.kind === 'tcp' ? options.listen.host : undefined;
  const secure = prepareProxyTls(options.upstreamTls, options.listenTls, options.upstream, node.warnedBefore ? () => undefined : log, [listenHost]);
  try {
    return await new SingleNodeProxy(options, secure, node).start();
  } catch (err) {
    secure.cleanup();
    throw err;
  }
}
