/**
 * TLS to a Redis that speaks plaintext: TCP connects, the ClientHello is read as an unfinished
 * inline command, and nothing comes back. The dial's timeout says so (as the proxy's per-connection
 * log and the cluster discovery do), and the proxy's start-up probe passes it on: it said "not
 * reachable now: no answer within 1000 ms", which reads as a Redis that is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRedisEndpoint } from '../../src/endpoint.js';
import { probeUpstream } from '../../src/proxy/probe.js';
import { dialRedisReady } from '../../src/redis/dial.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('TLS to a plaintext Redis', () => {
  it('dialRedisReady times out naming the missing handshake; a plaintext dial still connects', async () => {
    const at = parseRedisEndpoint(redis.address, 'test');
    await expect(dialRedisReady(at, { tls: { rejectUnauthorized: false } }, 300)).rejects.toThrow(/^no TLS handshake within 300 ms \(plaintext Redis\?\)$/);
    const plain = await dialRedisReady(at, {}, 1000);
    plain.destroy();
  });

  it("the proxy's start-up probe passes the reason on", async () => {
    const at = parseRedisEndpoint(redis.address, 'test');
    expect(await probeUpstream(at, 300, { rejectUnauthorized: false })).toEqual({ unreachable: 'no TLS handshake within 300 ms (plaintext Redis?)' });
  });
});
