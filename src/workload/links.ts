import type { BenchOptions } from './options.js';
import type { LinkSpec } from '../link/link-spec.js';
import type { ProxyOptions } from '../proxy/types.js';
import { parseAddress, formatEndpoint, type Endpoint } from '../endpoint.js';
import { connectClient, type DriverClient, type DriverClientOptions } from './clients.js';
import { forkProxyProcess, type ForkedProxy, type ProxyProcess } from './proxy-process/spawn.js';

/**
 * One link of a run: the proxy that simulates it (none for `direct`), in a process of its own,
 * and the clients behind it.
 */
export interface LinkEndpoint {
  spec: LinkSpec;
  proxy?: ProxyProcess;
  /** Where its clients connect: the proxy, or Redis itself on `direct`. */
  target: Endpoint;
  /** The reply timeout its clients use (longer on a slower link). */
  replyTimeoutMs: number;
  /** A plain client (every shape but auto). */
  plain: DriverClient;
  /** An auto-pipelining client, only when the plan has `auto` cells. */
  auto?: DriverClient;
  /**
   * Replaces a client with a fresh connection: after a failed sample it may still owe replies
   * (a dropped one leaves a command waiting), which the next configuration would take for its own.
   */
  renew(which: 'plain' | 'auto'): Promise<void>;
  /** One more connection over this link (open-loop runs use many); closed with the link. */
  connect(autoPipelining: boolean): Promise<DriverClient>;
  close(): Promise<void>;
}

export interface OpenLinkOptions extends DriverClientOptions {
  needAuto: boolean;
  seed?: number;
  /** See BenchOptions.compensation. */
  compensation: NonNullable<BenchOptions['compensation']>;
  /** This link's proxy process, forked ahead (forkProxiesAhead); without it openLink forks one. */
  forked?: ForkedProxy;
}

/**
 * Forks a process for every proxied link at once, before anything else, so they load while
 * Redis starts and the client warms up; each link's openLink starts its proxy. Close the ones
 * left over (a run stopped early) with the run.
 */
export function forkProxiesAhead(specs: readonly LinkSpec[]): Map<string, ForkedProxy> {
  const forks = new Map<string, ForkedProxy>();
  for (const spec of specs) if (!spec.direct && !forks.has(spec.name)) forks.set(spec.name, forkProxyProcess({ label: spec.name }));
  return forks;
}

function compensationOption(c: OpenLinkOptions['compensation']): Pick<ProxyOptions, 'compensationUs'> {
  if (c === 'auto') return {};
  if (typeof c === 'object') return { compensationUs: c };
  const us = c === 'off' ? 0 : c;
  return { compensationUs: { up: us, down: us } };
}

/** Starts the link's proxy (if any) and connects its clients; handshakes happen here, untimed. */
export async function openLink(spec: LinkSpec, redis: Endpoint, opts: OpenLinkOptions): Promise<LinkEndpoint> {
  let proxy: ProxyProcess | undefined;
  let target = redis;
  if (!spec.direct) {
    proxy = await (opts.forked ?? forkProxyProcess({ label: spec.name })).start(
      {
        upstream: formatEndpoint(redis),
        listen: '127.0.0.1:0',
        link: spec.update,
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        ...compensationOption(opts.compensation),
      },
    );
    target = parseAddress(proxy.address, 'proxy address');
  }
  const clients = new Set<DriverClient>();
  const closeAll = async (): Promise<void> => {
    await Promise.all([...clients].map((c) => c.close()));
    await proxy?.close();
  };
  // A slow link must not make the reply timeout fire on a healthy connection.
  const replyTimeoutMs = (opts.replyTimeoutMs ?? 30_000) + Math.ceil((spec.rttUs / 1000) * 20);
  const connect = async (autoPipelining: boolean): Promise<DriverClient> => {
    const c = await connectClient(target, { ...opts, replyTimeoutMs, autoPipelining });
    clients.add(c);
    return c;
  };
  try {
    const link: LinkEndpoint = {
      spec,
      ...(proxy ? { proxy } : {}),
      target,
      replyTimeoutMs,
      plain: await connect(false),
      ...(opts.needAuto ? { auto: await connect(true) } : {}),
      renew: async (which) => {
        const old = link[which];
        if (old) {
          clients.delete(old);
          await old.close();
        }
        link[which] = await connect(which === 'auto');
      },
      connect,
      close: closeAll,
    };
    return link;
  } catch (err) {
    await closeAll();
    throw err;
  }
}
