// The library's entry points refuse an option key they do not take, naming it, before anything
// starts: ignored, a typo ran without the setting (runBench({ link: [...] }) ran every default link).
import { describe, expect, it } from 'vitest';
import { ConfigError, runBench, runOpenLoopBench, startPrivateRedis } from '../../src/index.js';
import { trackedCount } from '../../src/redis/tracked-children.js';

const refused = (key: string, value: unknown, entry: string): ConfigError =>
  new ConfigError(key, value, `a key of ${entry}'s options (docs/api.md)`);

describe('an option key an entry point does not take', () => {
  it('runBench: link for links is refused before a Redis is spawned', async () => {
    await expect(runBench({ link: ['cross-az'] } as never)).rejects.toThrow(refused('link', ['cross-az'], 'runBench()'));
    expect(trackedCount()).toBe(0);
  });

  it('runOpenLoopBench: rate for rates', async () => {
    await expect(runOpenLoopBench({ rate: [100] } as never)).rejects.toThrow(refused('rate', [100], 'runOpenLoopBench()'));
    expect(trackedCount()).toBe(0);
  });

  it('startPrivateRedis: arg for args', async () => {
    await expect(startPrivateRedis({ arg: ['--maxmemory', '1mb'] } as never)).rejects.toThrow(refused('arg', ['--maxmemory', '1mb'], 'startPrivateRedis()'));
    expect(trackedCount()).toBe(0);
  });

  it('takes every key it documents: a private Redis starts with all of them given', async () => {
    await using redis = await startPrivateRedis({ transport: 'tcp', serverPath: 'redis-server', readyTimeoutMs: 5000, stopTimeoutMs: 3000, args: [], tls: false, sentinel: false });
    expect(redis.port).toBeGreaterThan(0);
  });
});
