import { Redis, type RedisOptions } from 'ioredis';
import { NetworkError } from '../errors.js';
import { connectOptions, type Endpoint } from '../endpoint.js';

export interface DriverClientOptions {
  /** ioredis auto-pipelining (the `auto` shape). @default false */
  autoPipelining?: boolean;
  /** A command with no reply after this long fails (this is how a dropped reply is caught). @default 30000 */
  replyTimeoutMs?: number;
  /** RESP version to speak. @default 3 (ioredis 6's own default) */
  protocol?: 2 | 3;
  password?: string;
}

/**
 * A connected ioredis client set up so that nothing hides a failure: no retries, no offline
 * queue, no reconnects, no resubscribe. The connection handshake happens here, before any timing
 * and before the caller takes its counter baselines.
 */
export async function connectClient(endpoint: Endpoint, opts: DriverClientOptions = {}): Promise<DriverClient> {
  const options: RedisOptions = {
    ...connectOptions(endpoint),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    reconnectOnError: () => false,
    autoResubscribe: false,
    enableReadyCheck: false,
    // CLIENT SETINFO does not exist before Redis 7.2: its error replies would be counted by the proxy.
    disableClientInfo: true,
    enableAutoPipelining: opts.autoPipelining ?? false,
    commandTimeout: opts.replyTimeoutMs ?? 30_000,
    protocol: opts.protocol ?? 3,
    ...(opts.password !== undefined ? { password: opts.password } : {}),
  };
  const redis = new Redis(options);
  const client = new DriverClient(redis);
  try {
    await redis.connect();
  } catch (err) {
    // A failed connect leaves it 'end', its socket closed: ioredis's disconnect() would then wait
    // for a 'close' already past, holding the process for its 2 s disconnect timeout.
    if (redis.status !== 'end') redis.disconnect();
    const where = endpoint.kind === 'unix' ? endpoint.path : `${endpoint.host}:${endpoint.port}`;
    // ioredis rejects with "Connection is closed." and emits the cause (ECONNREFUSED, ENOENT) as an 'error'.
    const cause = (client.lastError ?? err) as NodeJS.ErrnoException;
    throw new NetworkError(`could not connect to ${where}: ${cause.message}`, cause.code ?? (err as NodeJS.ErrnoException).code);
  }
  return client;
}

/** An ioredis client plus the last connection-level error it emitted (ioredis emits, not throws). */
export class DriverClient {
  lastError: Error | undefined;

  constructor(readonly redis: Redis) {
    // Without a listener an 'error' event would crash the process; we surface it through replies.
    redis.on('error', (err: Error) => {
      this.lastError = err;
    });
  }

  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    // Cleared once the race is over: a pending timer kept the caller's process alive for its
    // second after runBench resolved.
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([this.redis.quit(), new Promise((resolve) => (timer = setTimeout(resolve, 1000)))]);
    } catch {
      // already closing
    } finally {
      clearTimeout(timer);
    }
    // quit() ends it as a failed connect does (TypeScript narrowed status before the await).
    if ((this.redis.status as string) !== 'end') this.redis.disconnect();
  }
}
