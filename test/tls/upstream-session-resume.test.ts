import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { dialRedisReady } from '../../src/redis/dial.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { plainPing as ping } from './plain-ping.js';

/** Spies on tls.connect: each dial's options, and whether its handshake resumed a session. */
function watchDials(): { offered: (Buffer | undefined)[]; resumed: boolean[] } {
  const seen = { offered: [] as (Buffer | undefined)[], resumed: [] as boolean[] };
  const connect = tls.connect;
  vi.spyOn(tls, 'connect').mockImplementation(((o: tls.ConnectionOptions) => {
    seen.offered.push(o.session);
    const s = connect(o);
    s.once('secureConnect', () => seen.resumed.push(s.isSessionReused()));
    return s;
  }) as typeof tls.connect);
  return seen;
}

describe('upstream TLS: sessions resumed', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis({ tls: true });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await redis?.stop();
  });

  it("a client connection's dial to Redis resumes the session of a dial before it", async () => {
    const dials = watchDials();
    const p = await startProxy({ upstream: redis.address, upstreamTls: { ca: redis.tls!.caFile }, cluster: 'off', compensationUs: { up: 0, down: 0 }, log: () => undefined });
    try {
      const atStart = dials.resumed.length;
      for (let i = 0; i < 3; i++) expect(await ping(p.port!)).toBe('+PONG\r\n');
      expect(dials.resumed.slice(atStart)).toEqual([true, true, true]);
      expect(p.tlsStats!().upstreamHandshakes).toBe(3);
    } finally {
      await p.close();
      vi.restoreAllMocks();
    }
  });

  it('a session is offered only to the endpoint it came from', async () => {
    const other = await startPrivateRedis({ tls: { files: redis.tls! } });
    const dials = watchDials();
    // One options object for both, as a dial's options are made once: sessions are kept per endpoint.
    const options: tls.ConnectionOptions = { ca: readFileSync(redis.tls!.caFile) };
    try {
      for (const at of [redis, redis, other, other]) {
        const s = await dialRedisReady({ kind: 'tcp', host: '127.0.0.1', port: at.port! }, { tls: options });
        // A TLS 1.3 session comes after the handshake: wait for it as a client that sent a command would.
        await new Promise((r) => s.once('session', r));
        s.destroy();
      }
      expect(dials.offered.map((b) => b instanceof Buffer)).toEqual([false, true, false, true]);
      expect(dials.resumed).toEqual([false, true, false, true]);
    } finally {
      vi.restoreAllMocks();
      await other.stop();
    }
  });
});
