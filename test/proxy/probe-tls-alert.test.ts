/**
 * A TLS 1.3 Redis that wants a client certificate (tls-auth-clients yes) and got none completes the
 * handshake, then answers the first PING with its alert. The start-up checks used to read that as a
 * server that is not Redis ("did not answer PING like Redis (no reply to PING (closed)); no
 * compensation"); now the probe names the alert, as the per-connection log does, and the hop
 * measurement falls back as for any upstream it cannot reach.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRedisEndpoint } from '../../src/endpoint.js';
import { probeUpstream } from '../../src/proxy/probe.js';
import { measureHopThrough } from '../../src/proxy/self-calibrate.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis({ tls: { clientAuth: true } });
});
afterAll(async () => {
  await redis?.stop();
});

describe('an mTLS Redis dialed without a client certificate', () => {
  it('the start-up probe names the alert; the hop measurement reports nothing measured, not "not Redis"', async () => {
    const at = parseRedisEndpoint(redis.address, 'test');
    const secure = { ca: readFileSync(redis.tls!.caFile), servername: 'localhost' };
    const probe = await probeUpstream(at, 2000, secure);
    // The alert's reason, not OpenSSL's whole error line (its address, source file and a newline).
    expect(probe).toEqual({ unreachable: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED (tlsv13 alert certificate required)' });
    expect(await measureHopThrough(at, at, { upstream: secure })).toBeUndefined();
    // With the certificate both get through.
    const withCert = { ...secure, cert: readFileSync(redis.tls!.clientCertFile!), key: readFileSync(redis.tls!.clientKeyFile!) };
    expect(await probeUpstream(at, 2000, withCert)).toBeUndefined();
  });
});
