// The README's first example, verbatim (test/docs/readme.test.ts checks that the README still shows
// exactly this code, with 'redis-rtt' for the import path), and its counterpart that must fail it.
import { expect, test } from 'vitest';
import { Redis } from 'ioredis';
import { startPrivateRedis, startProxy } from '../src/index.js';

test('a user page loads in one round trip, even 1.2 ms away', async () => {
  const redis = await startPrivateRedis();
  const proxy = await startProxy({ upstream: redis.address, link: { preset: 'cross-az' } });
  const client = new Redis(`redis://${proxy.address}`, { lazyConnect: true });
  await client.connect();
  proxy.resetStats(); // count from here: the client's own connect handshake is not under test
  await client.pipeline().hgetall('user:1').smembers('user:1:roles').exec(); // code under test
  expect(proxy.stats().totals.roundTrips).toBe(1);
  client.disconnect();
  await proxy.close();
  await redis.stop();
});

test('the same two reads awaited one by one cost two round trips, so the assertion above can fail', async () => {
  const redis = await startPrivateRedis();
  const proxy = await startProxy({ upstream: redis.address, link: { preset: 'cross-az' } });
  const client = new Redis(`redis://${proxy.address}`, { lazyConnect: true });
  try {
    await client.connect();
    proxy.resetStats();
    await client.hgetall('user:1');
    await client.smembers('user:1:roles');
    expect(proxy.stats().totals.roundTrips).toBe(2);
    expect(proxy.stats().totals.commands).toBe(2);
  } finally {
    client.disconnect();
    await proxy.close();
    await redis.stop();
  }
});
