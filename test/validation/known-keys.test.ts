// The library's entry points refuse an option key they do not take, naming it, before anything
// starts: ignored, a typo ran without the setting (runBench({ link: [...] }) ran every default link).
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  runBench,
  runCalibrate,
  runDemo,
  runOpenLoopBench,
  startPrivateCluster,
  startPrivateRedis,
  startPrivateSentinel,
  startToxiproxyServer,
} from '../../src/index.js';
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

describe('the other start and run functions', () => {
  it('refuse a key they do not take, before anything starts', async () => {
    await expect(startPrivateCluster({ master: 3 } as never)).rejects.toThrow(refused('master', 3, 'startPrivateCluster()'));
    await expect(startPrivateSentinel({ replica: 1 } as never)).rejects.toThrow(refused('replica', 1, 'startPrivateSentinel()'));
    await expect(startToxiproxyServer({ port: 8474 } as never)).rejects.toThrow(refused('port', 8474, 'startToxiproxyServer()'));
    await expect(runCalibrate({ rtts: [1000] } as never)).rejects.toThrow(refused('rtts', [1000], 'runCalibrate()'));
    await expect(runDemo({ json: '-' } as never)).rejects.toThrow(refused('json', '-', 'runDemo()'));
    expect(trackedCount()).toBe(0);
  });

  it('a bad count for a private cluster or Sentinel set-up is a ConfigError naming it (was a RedisSpawnError)', async () => {
    await expect(startPrivateCluster({ masters: 2 })).rejects.toThrow(new ConfigError('masters', 2, 'a whole number of at least 3'));
    await expect(startPrivateCluster({ replicasPerMaster: -1 })).rejects.toMatchObject({ name: 'ConfigError', flag: 'replicasPerMaster' });
    await expect(startPrivateSentinel({ replicas: 1.5 })).rejects.toMatchObject({ name: 'ConfigError', flag: 'replicas' });
    await expect(startPrivateSentinel({ sentinels: 0 })).rejects.toMatchObject({ name: 'ConfigError', flag: 'sentinels' });
    await expect(startPrivateSentinel({ sentinels: 3, quorum: 4 })).rejects.toThrow(new ConfigError('quorum', 4, 'a whole number from 1 to 3 (the sentinels)'));
    expect(trackedCount()).toBe(0);
  });

  it("a private Sentinel set-up's timings and master name are checked before a server starts (redis-server took 1.5 as 1, and '' as a name)", async () => {
    const ms = 'whole milliseconds, from 1 to 2147483647';
    await expect(startPrivateSentinel({ downAfterMs: 0 })).rejects.toThrow(new ConfigError('downAfterMs', 0, ms));
    await expect(startPrivateSentinel({ downAfterMs: 1.5 })).rejects.toThrow(new ConfigError('downAfterMs', 1.5, ms));
    await expect(startPrivateSentinel({ failoverTimeoutMs: -1 })).rejects.toThrow(new ConfigError('failoverTimeoutMs', -1, ms));
    await expect(startPrivateSentinel({ readyTimeoutMs: -5 })).rejects.toThrow(new ConfigError('readyTimeoutMs', -5, ms));
    await expect(startPrivateSentinel({ downAfterMs: '1000' as never })).rejects.toMatchObject({ name: 'ConfigError', flag: 'downAfterMs' });
    await expect(startPrivateSentinel({ readyTimeoutMs: 2 ** 31 })).rejects.toMatchObject({ name: 'ConfigError', flag: 'readyTimeoutMs' });
    // Sentinel's events are space-separated: a name with a space cannot be read back out of them.
    for (const masterName of ['', 'my master']) {
      await expect(startPrivateSentinel({ masterName })).rejects.toThrow(new ConfigError('masterName', masterName, 'a name with no spaces'));
    }
    expect(trackedCount()).toBe(0);
  });

  it('a private Redis or cluster: a bad timeout, path or switch is a ConfigError naming it, before a server starts', async () => {
    // They were RedisSpawnErrors, as if Redis had failed: `did not answer PING within -1 ms`, or redis-server refusing
    // --cluster-node-timeout -1; 'yes' for tls made TLS files, and a number for serverPath spawned its digits.
    await expect(startPrivateRedis({ readyTimeoutMs: -1 })).rejects.toThrow(new ConfigError('readyTimeoutMs', -1, 'milliseconds, from 1 to 2147483647'));
    await expect(startPrivateRedis({ readyTimeoutMs: Number.NaN })).rejects.toMatchObject({ name: 'ConfigError', flag: 'readyTimeoutMs' });
    await expect(startPrivateRedis({ stopTimeoutMs: '3s' as never })).rejects.toThrow(new ConfigError('stopTimeoutMs', '3s', 'milliseconds, from 0 to 2147483647'));
    await expect(startPrivateRedis({ serverPath: 5 as never })).rejects.toMatchObject({ name: 'ConfigError', flag: 'serverPath' });
    await expect(startPrivateRedis({ sentinel: 'yes' as never })).rejects.toMatchObject({ name: 'ConfigError', flag: 'sentinel' });
    await expect(startPrivateCluster({ nodeTimeoutMs: -1 })).rejects.toThrow(new ConfigError('nodeTimeoutMs', -1, 'whole milliseconds, from 1 to 2147483647'));
    await expect(startPrivateCluster({ nodeTimeoutMs: 1.5 })).rejects.toMatchObject({ name: 'ConfigError', flag: 'nodeTimeoutMs' });
    await expect(startPrivateCluster({ readyTimeoutMs: 0 })).rejects.toMatchObject({ name: 'ConfigError', flag: 'readyTimeoutMs' });
    await expect(startPrivateCluster({ cliPath: '' })).rejects.toMatchObject({ name: 'ConfigError', flag: 'cliPath' });
    await expect(startPrivateCluster({ tls: 'yes' as never })).rejects.toMatchObject({ name: 'ConfigError', flag: 'tls' });
    expect(trackedCount()).toBe(0);
  });
});
