/**
 * `--listen-tls-ca` (listenTls.ca) requires client certificates signed by that CA (docs/tls.md). A
 * certificate of another CA, or a self-signed one, used to get through: the listener's TLSSocket is
 * a bare server socket, whose certificate verdict nobody read (tls.Server reads it in a handler of
 * its own). Now such a client is closed after the handshake, before any of its bytes reach Redis,
 * counted in handshakeFailures and logged with OpenSSL's reason; TLS 1.2 and 1.3 alike.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { generateTlsFiles, type TlsFiles } from '../../src/redis/tls-certs.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-client-cert-'));
let redis: PrivateRedis;
let own: TlsFiles;
let other: TlsFiles;
beforeAll(async () => {
  mkdirSync(join(dir, 'own'));
  mkdirSync(join(dir, 'other'));
  own = generateTlsFiles(join(dir, 'own'), { client: true });
  other = generateTlsFiles(join(dir, 'other'), { client: true });
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A PING over TLS with this client pair: the reply, or how the connection ended without one. */
function ping(port: number, cert: string, key: string, maxVersion: tls.SecureVersion): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: readFileSync(own.caFile), cert: readFileSync(cert), key: readFileSync(key), maxVersion });
    let reply = '';
    socket.on('secureConnect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (d: Buffer) => {
      reply += d.toString();
      if (reply.endsWith('\r\n')) socket.end();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (reply ||= `error ${e.code}`));
    socket.on('close', () => resolve(reply || 'closed'));
  });
}

describe('--listen-tls-ca: a client certificate the CA did not sign is refused', () => {
  for (const maxVersion of ['TLSv1.3', 'TLSv1.2'] as const) {
    it(`${maxVersion}: the CA's client gets PONG; another CA's and a self-signed one are closed before Redis sees a byte`, async () => {
      const logs: string[] = [];
      const proxy = await startProxy({
        upstream: redis.address,
        listenTls: { cert: own.certFile, key: own.keyFile, ca: own.caFile, maxVersion },
        compensationUs: { up: 0, down: 0 },
        log: (l) => logs.push(l),
      });
      try {
        expect(await ping(proxy.port!, own.clientCertFile!, own.clientKeyFile!, maxVersion)).toBe('+PONG\r\n');
        // The other CA's client certificate, and that CA's own (self-signed) certificate.
        for (const [cert, key] of [
          [other.clientCertFile!, other.clientKeyFile!],
          [other.caFile, join(dir, 'other', 'ca.key')],
        ] as const) {
          expect(await ping(proxy.port!, cert, key, maxVersion)).not.toContain('PONG');
        }
        expect(proxy.stats().totals.commands).toBe(1);
        expect(proxy.tlsStats!()).toMatchObject({ handshakes: 1, handshakeFailures: 2 });
        expect(logs.join('\n')).toMatch(/client TLS (UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY) .*\(client certificate\)/);
      } finally {
        await proxy.close();
      }
    });
  }
});
