import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { plainPing as ping } from './plain-ping.js';

describe('upstream TLS: one SecureContext for every dial', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis({ tls: { clientAuth: true } });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await redis?.stop();
  });

  it('new client connections (with a CA and a client certificate) build no context of their own', async () => {
    const made = vi.spyOn(tls, 'createSecureContext');
    const t = redis.tls!;
    const p = await startProxy({
      upstream: redis.address,
      upstreamTls: { ca: t.caFile, cert: t.clientCertFile, key: t.clientKeyFile },
      cluster: 'off',
      compensationUs: { up: 0, down: 0 },
      log: () => undefined,
    });
    try {
      const atStart = made.mock.calls.length;
      expect(atStart).toBeGreaterThanOrEqual(1);
      for (let i = 0; i < 3; i++) expect(await ping(p.port!)).toBe('+PONG\r\n');
      // Redis verified our certificate on each (tls-auth-clients yes), from the context made at start.
      expect(p.tlsStats!().upstreamHandshakes).toBe(3);
      expect(made.mock.calls.length).toBe(atStart);
    } finally {
      await p.close();
      made.mockRestore();
    }
  });
});
