/**
 * What the clients-*.test.ts files share: a Redis with a proxy before it, a raw connection, and the
 * counts of both sides to compare.
 */
import type net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, vi } from 'vitest';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { rawSocket } from './helpers.js';

export const WAIT = { timeout: 5000, interval: 5 };

/** What a describe block of the clients-*.test.ts files runs against (set in its beforeAll). */
export interface ProxiedRedis {
  redis: PrivateRedis;
  proxy: RedisRttProxy;
  /** A connection to Redis directly. */
  admin: Redis;
}

/**
 * For the describe block it is called in: a private Redis started with `redisArgs`, a plain proxy
 * before it with a delay each way, and a direct admin connection, all closed after its tests; before
 * each test, once the proxy has no connection open, both sides' counters are zeroed.
 */
export function proxiedRedis(redisArgs: string[] = []): ProxiedRedis {
  const env = {} as ProxiedRedis;
  beforeAll(async () => {
    env.redis = await startPrivateRedis({ args: redisArgs });
    env.proxy = await startSingleNodeProxy({ upstream: env.redis.address, link: { upUs: 300, downUs: 500 }, compensationUs: { up: 0, down: 0 } });
    env.admin = new Redis({ host: env.redis.host, port: env.redis.port, lazyConnect: true });
    await env.admin.connect();
  });
  afterAll(async () => {
    env.admin?.disconnect();
    await env.proxy?.close();
    await env.redis?.stop();
  });
  beforeEach(async () => {
    await vi.waitUntil(() => env.proxy.stats().connections.active === 0, WAIT);
    await env.admin.config('RESETSTAT');
    env.proxy.resetStats();
  });
  return env;
}

/** A raw connection (as `nc` is): inline commands, everything received kept. */
export class Raw {
  text = '';
  private constructor(readonly socket: net.Socket) {
    socket.on('data', (c: Buffer) => (this.text += c.toString('latin1')));
  }
  static async open(p: { readonly host?: string | undefined; readonly port?: number | undefined }): Promise<Raw> {
    return new Raw(await rawSocket(p.host!, p.port!));
  }
  /** Writes `bytes` and waits until what was received ends with `until`. */
  async send(bytes: string, until: string): Promise<void> {
    this.socket.write(bytes);
    await vi.waitUntil(() => this.text.endsWith(until), WAIT).catch(() => {
      throw new Error(`waited for ${JSON.stringify(until)}, got ${JSON.stringify(this.text.slice(-400))}`);
    });
  }
  close(): void {
    this.socket.destroy();
  }
}

/** Calls per command in INFO commandstats (rejected ones too), as the proxy names them. */
export async function redisRan(admin: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of (await admin.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+),.*rejected_calls=(\d+)/gm)) {
    const n = Number(m[2]) + Number(m[3]);
    if (m[1] !== 'config|resetstat' && n > 0) out[m[1]!.toUpperCase().replace('|', ' ')] = n;
  }
  return out;
}

/** Count per command name in the proxy's /stats. */
export function proxyCounted(proxy: RedisRttProxy): Record<string, number> {
  return Object.fromEntries(Object.entries(proxy.stats().commands).map(([name, c]) => [name, c.count]));
}

export function totals(proxy: RedisRttProxy): { commands: number; replies: number; pushes: number; roundTrips: number; errorReplies: number } {
  const { commands, replies, pushes, roundTrips, errorReplies } = proxy.stats().totals;
  return { commands, replies, pushes, roundTrips, errorReplies };
}

