import { parseAddress, type Endpoint } from '../endpoint.js';
import { startPrivateRedis, type PrivateRedis } from '../redis/index.js';

/**
 * The Redis a bench measures: the one `--redis` names, or, without it, a private one started here
 * (the caller stops it when done).
 */
export async function benchRedis(redis: string | undefined): Promise<{ endpoint: Endpoint; privateRedis?: PrivateRedis }> {
  if (redis !== undefined) return { endpoint: parseAddress(redis, '--redis') };
  const privateRedis = await startPrivateRedis();
  return { endpoint: parseAddress(privateRedis.address), privateRedis };
}
