import type net from 'node:net';
import type tls from 'node:tls';
import { realClock } from '../clock.js';
import type { Endpoint } from '../endpoint.js';
import { quantile } from '../numbers/quantiles.js';
import { describeFailure, dialRedisReady } from '../redis/dial.js';
import { ReplyFramer } from '../resp/reply-framer.js';

export interface HopThrough {
  /** Lower-quartile PING round trip straight to the upstream, microseconds. */
  directUs: number;
  /** Lower-quartile PING round trip through this proxy with no delay, microseconds. */
  proxyUs: number;
}

/** The start-up PING got an answer that is not RESP, or none: whatever listens there is not Redis. */
export interface NotRedis {
  notRedis: string;
}

const PING = Buffer.from('*1\r\n$4\r\nPING\r\n');

class NotRedisError extends Error {}

/**
 * The TLS peer refused us after the handshake (TLS 1.3 checks a client certificate then, and its alert
 * comes with the first read): a TLS set-up problem to name, not a server that is not Redis.
 */
class TlsRefusedError extends Error {}

/**
 * Measures the proxy's own hop: PING round trips straight to the upstream and through the proxy's
 * own listener (no delay), in alternating blocks so drift cancels. Any RESP reply counts (a server
 * that wants AUTH answers -NOAUTH just as fast); anything else (an HTTP server's "HTTP/1.1 400", or
 * silence for a second) means the upstream is not Redis: NotRedis, and nothing measured. In-process:
 * a probe in a separate process measured the same within noise but costs far more start-up
 * (docs/measurements.md).
 * Resolves undefined when the upstream cannot be reached, so the caller can fall back to a loopback
 * estimate.
 */
export async function measureHopThrough(
  self: Endpoint,
  upstream: Endpoint,
  secure: { self?: tls.ConnectionOptions; upstream?: tls.ConnectionOptions } = {},
  samples = 200,
): Promise<HopThrough | NotRedis | undefined> {
  let direct: Pinger | undefined;
  let through: Pinger | undefined;
  try {
    try {
      direct = await Pinger.connect(upstream, secure.upstream);
    } catch {
      return undefined;
    }
    try {
      await direct.ping();
    } catch (err) {
      if (err instanceof TlsRefusedError) return undefined; // the start-up probe names it
      return { notRedis: err instanceof NotRedisError ? err.message : `no reply to PING (${(err as Error).message})` };
    }
    through = await Pinger.connect(self, secure.self);
    for (let i = 0; i < 20; i++) {
      await direct.ping();
      await through.ping();
    }
    const d: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < samples; i += 20) {
      for (let j = 0; j < 20; j++) d.push(await direct.ping());
      for (let j = 0; j < 20; j++) p.push(await through.ping());
    }
    // The lower quartile: a busy machine inflates the upper part of both distributions, and
    // over-compensating would make the link faster than asked (worse than slightly slower).
    return { directUs: quantile(d, 0.25), proxyUs: quantile(p, 0.25) };
  } catch {
    return undefined;
  } finally {
    direct?.close();
    through?.close();
  }
}

/**
 * One PING to the upstream on a connection of its own, closed at once: undefined when it answered
 * with RESP, NotRedis when it answered something else (or nothing within the timeout), and
 * `{ unreachable }` with the errno when nothing accepted the connection.
 */
export async function pingUpstream(
  upstream: Endpoint,
  timeoutMs = 1000,
  secure?: tls.ConnectionOptions,
): Promise<{ unreachable: string } | NotRedis | undefined> {
  let pinger: Pinger;
  try {
    pinger = await Pinger.connect(upstream, secure, timeoutMs);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (secure && e.code !== undefined) return { unreachable: describeFailure(e) };
    return { unreachable: e.code ?? e.message };
  }
  try {
    await pinger.ping(timeoutMs);
    return undefined;
  } catch (err) {
    if (err instanceof TlsRefusedError) return { unreachable: err.message };
    return { notRedis: err instanceof NotRedisError ? err.message : `no reply to PING (${(err as Error).message})` };
  } finally {
    pinger.close();
  }
}

/** One connection for PINGs; the reply framer says when a reply is whole, or that what answered is not RESP. */
class Pinger {
  private waiting: ((outcome: true | Error) => void) | undefined;
  private constructor(private readonly socket: net.Socket) {
    let first: Buffer | undefined;
    const framer = new ReplyFramer({
      frame: () => this.waiting?.(true),
      desync: () => this.waiting?.(new NotRedisError(`answered ${JSON.stringify(first!.subarray(0, 24).toString('latin1'))}`)),
    });
    socket.on('data', (d: Buffer) => {
      first ??= d;
      framer.push(d);
    });
    socket.on('close', () => this.waiting?.(new Error('closed')));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      this.waiting?.(err.code?.startsWith('ERR_SSL_') ? new TlsRefusedError(describeFailure(err)) : new Error('closed')),
    );
  }

  static async connect(at: Endpoint, secure: tls.ConnectionOptions | undefined, timeoutMs = 1000): Promise<Pinger> {
    const s = await dialRedisReady(at, { tls: secure }, timeoutMs);
    return new Pinger(s);
  }

  ping(timeoutMs = 1000): Promise<number> {
    return new Promise((resolve, reject) => {
      const t0 = realClock.nowNs();
      const timer = setTimeout(() => reject(new Error(`none within ${timeoutMs} ms`)), timeoutMs);
      this.waiting = (outcome) => {
        clearTimeout(timer);
        this.waiting = undefined;
        if (outcome === true) resolve((realClock.nowNs() - t0) / 1000);
        else reject(outcome);
      };
      this.socket.write(PING);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}
