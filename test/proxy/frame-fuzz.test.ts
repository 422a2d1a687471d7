import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { rawSocket } from './helpers.js';
// Seeded, so a failure can be replayed from its seed.
import { mulberry32 as rng } from '../../src/link/rng.js';

function bulk(b: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n')]);
}
function command(...args: (string | Buffer)[]): Buffer {
  return Buffer.concat([Buffer.from(`*${args.length}\r\n`), ...args.map((a) => bulk(Buffer.from(a)))]);
}

/** A random pipeline of stateless or self-contained commands (same replies on any fresh db). */
function pipeline(r: () => number, tag: string): Buffer {
  const parts: Buffer[] = [];
  const n = 1 + Math.floor(r() * 60);
  for (let i = 0; i < n; i++) {
    const value = Buffer.alloc(Math.floor(r() * (r() < 0.1 ? 40_000 : 300)));
    for (let j = 0; j < value.length; j++) value[j] = Math.floor(r() * 256);
    const key = `${tag}:${Math.floor(r() * 5)}`;
    const pick = Math.floor(r() * 7);
    if (pick === 0) parts.push(command('ECHO', value));
    else if (pick === 1) parts.push(command('SET', key, value));
    else if (pick === 2) parts.push(command('GET', key));
    else if (pick === 3) parts.push(command('RPUSH', `${key}:l`, value, 'x'));
    else if (pick === 4) parts.push(command('LRANGE', `${key}:l`, '0', '2'));
    else if (pick === 5) parts.push(Buffer.from('PING\r\n'));
    else parts.push(command('HSET', `${key}:h`, 'f', value), command('HGETALL', `${key}:h`));
  }
  return Buffer.concat(parts);
}

/** Writes `bytes` in random slices and reads until `expectBytes` arrived (or the other side stops). */
async function exchange(host: string, port: number, bytes: Buffer, r: () => number, until: (got: Buffer) => boolean): Promise<Buffer> {
  const s = await rawSocket(host, port);
  const chunks: Buffer[] = [];
  let size = 0;
  s.on('data', (d: Buffer) => (chunks.push(d), (size += d.length)));
  for (let at = 0; at < bytes.length; ) {
    const len = 1 + Math.floor(r() * (r() < 0.5 ? 16 : 4096));
    s.write(bytes.subarray(at, at + len));
    at += len;
    if (r() < 0.2) await new Promise((res) => setImmediate(res));
  }
  await vi.waitUntil(() => size > 0 && until(Buffer.concat(chunks)), { timeout: 10_000, interval: 5 });
  s.destroy();
  return Buffer.concat(chunks);
}

describe('fuzz: random pipelines through a pass-through frame stage arrive byte-identical', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  let requests = 0;
  let replies = 0;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({
      upstream: redis.address,
      link: { rttUs: 100 },
      compensationUs: { up: 0, down: 0 },
      stages: [
        {
          kind: 'frame',
          name: 'pass',
          create: () => ({
            onRequest: () => (requests++, { kind: 'forward' }),
            onReply: () => (replies++, { kind: 'pass' }),
          }),
        },
      ],
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.stop();
  });

  it('matches what Redis sends straight back, over 30 seeded pipelines', async () => {
    // Both paths against the same fresh data: flush, run through the proxy, flush, run direct.
    for (let seed = 1; seed <= 30; seed++) {
      const input = pipeline(rng(seed), `g${seed}`);
      const expected = await replyOf(input, seed, redis.host!, redis.port!);
      const got = await replyOf(input, seed, proxy.host!, proxy.port!, expected.length);
      expect(got.equals(expected), `seed ${seed}`).toBe(true);
    }
    expect(requests).toBeGreaterThan(30);
    expect(replies).toBeGreaterThanOrEqual(requests);
  });

  async function replyOf(input: Buffer, seed: number, host: string, port: number, expectLen?: number): Promise<Buffer> {
    await flush();
    const marker = command('ECHO', `end-of-${seed}`);
    const tail = bulk(Buffer.from(`end-of-${seed}`));
    return exchange(host, port, Buffer.concat([input, marker]), rng(seed * 13), (got) =>
      expectLen !== undefined ? got.length >= expectLen : got.subarray(got.length - tail.length).equals(tail),
    );
  }

  async function flush(): Promise<void> {
    await exchange(redis.host!, redis.port!, command('FLUSHALL'), rng(1), (g) => g.toString() === '+OK\r\n');
  }
});
