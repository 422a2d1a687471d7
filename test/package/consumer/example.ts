import { Redis } from 'ioredis';
import { startPrivateRedis, startProxy, type ProxyOptions } from 'redis-rtt';

await using redis = await startPrivateRedis();
const options: ProxyOptions = { upstream: redis.address, link: { preset: 'cross-az' } };
await using proxy = await startProxy(options);
const client = new Redis(`redis://${proxy.address}`, { lazyConnect: true });
await client.connect();
proxy.resetStats(); // count from here: the connect handshake is not the code under test
await client.pipeline().hgetall('user:1').smembers('user:1:roles').exec();
console.log(proxy.stats().totals.roundTrips); // 1
client.disconnect();
// At the end of the scope, even on a throw: the proxy closes, then the private Redis stops.
