import net from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';
import { FakeClock } from '../../src/clock.js';
import { parseEndpoint } from '../../src/endpoint.js';
import { LinkState } from '../../src/link/link-state.js';
import { ManualScheduler } from '../../src/link/manual-scheduler.js';
import type { ProxyListenerOptions } from '../../src/proxy/listener-options.js';
import { ProxyListener } from '../../src/proxy/listener.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import type { FrameStageFactory } from '../../src/stage/types.js';

/** An ioredis client with retries and offline queue off, so a failure shows instead of hiding. */
export function client(p: { host?: string; port?: number }, extra: RedisOptions = {}): Redis {
  return new Redis({
    host: p.host,
    port: p.port,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    retryStrategy: () => null,
    lazyConnect: true,
    ...extra,
  });
}

export function proxyClient(p: RedisRttProxy, extra: RedisOptions = {}): Redis {
  return client({ host: p.host, port: p.port }, extra);
}

/** A port nothing listens on: bind, read it back, close (port 0, never a guessed number). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A raw socket to an address, resolved once connected. */
export async function rawSocket(host: string, port: number): Promise<net.Socket> {
  const s = net.connect({ host, port, noDelay: true, allowHalfOpen: true });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', resolve);
    s.once('error', reject);
  });
  return s;
}

/** Collects everything a socket receives until it ends or closes. */
export function collect(s: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    const done = (): void => resolve(Buffer.concat(chunks));
    s.once('end', done);
    s.once('close', done);
  });
}

export { median } from '../../src/numbers/quantiles.js';

/**
 * A bare ProxyListener (no stats server, no control endpoint) on a free port in front of `upstream`,
 * with no delay, on a hand-driven clock: zero-delay chunks pass in the read callback.
 */
export function bareListener(upstream: string, extra: Partial<ProxyListenerOptions> = {}): ProxyListener {
  return new ProxyListener({
    upstream: parseEndpoint(upstream, '--upstream'),
    listen: parseEndpoint('127.0.0.1:0', '--listen'),
    link: new LinkState({ rttUs: 0 }),
    taps: undefined,
    scheduler: new ManualScheduler(new FakeClock(0)),
    highWaterBytes: 1 << 20,
    handshake: false,
    connectTimeoutMs: 5_000,
    argSizes: false,
    log: () => undefined,
    ...extra,
  });
}

/** A frame stage that passes every reply: a proxy with it frames each connection (the framed path). */
export const passAll: FrameStageFactory = { kind: 'frame', name: 'pass-all', create: () => ({ onReply: () => ({ kind: 'pass' }) }) };

/** One request in RESP, as a client writes it. */
export function resp(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}
