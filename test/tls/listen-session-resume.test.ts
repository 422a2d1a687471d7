import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startProxy } from '../../src/cluster/start-proxy.js';

interface Pinged {
  resumed: boolean;
  session: Buffer | undefined;
}

/** A TLS client's PING on a new connection, offering `session`: whether it resumed, and the session it got. */
function ping(port: number, ca: Buffer, maxVersion: tls.SecureVersion, session: Buffer | undefined): Promise<Pinged> {
  return new Promise((resolve, reject) => {
    let latest: Buffer | undefined;
    const s = tls.connect({ host: '127.0.0.1', port, ca, maxVersion, session });
    s.on('session', (b: Buffer) => (latest = b));
    s.once('secureConnect', () => s.write('*1\r\n$4\r\nPING\r\n'));
    s.once('data', (d) => {
      expect(d.toString()).toBe('+PONG\r\n');
      const resumed = s.isSessionReused();
      s.destroy();
      resolve({ resumed, session: latest });
    });
    s.once('error', reject);
  });
}

describe('--listen-tls: clients resume their sessions, as with a TLS Redis', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
    it(`${version}: the second connection offers the first one's session and resumes it`, async () => {
      const p = await startProxy({ upstream: redis.address, listenTls: { maxVersion: version }, cluster: 'off', compensationUs: { up: 0, down: 0 }, log: () => undefined });
      try {
        const ca = readFileSync(p.tlsCaFile!);
        const first = await ping(p.port!, ca, version, undefined);
        expect(first.resumed).toBe(false);
        expect(first.session).toBeInstanceOf(Buffer);
        const second = await ping(p.port!, ca, version, first.session);
        expect(second.resumed).toBe(true);
        expect(p.tlsStats!().handshakes).toBe(2);
      } finally {
        await p.close();
      }
    });
  }
});
