import { describe, expect, it } from 'vitest';
import { ConfigError, PreciseScheduler, startPrivateRedis, startProxy, startSentinelProxy, type ProxyOptions, type SentinelProxyOptions } from '../../src/index.js';
import { PROXY_OPTIONS } from '../../src/proxy/options-schema.js';

// A typo the options' schema would strip: the proxy started without the setting, silently.
describe('an option key startProxy does not take', () => {
  it('is refused naming the key, before anything listens', async () => {
    const typo = { lnk: { rttUs: 20_000 } } as unknown as Partial<ProxyOptions>;
    const err = await startProxy({ upstream: '127.0.0.1:1', ...typo }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ flag: 'lnk', value: { rttUs: 20_000 } });
    expect((err as Error).message).toBe(`lnk: invalid value {"rttUs":20000}; expected a key of startProxy()'s options (docs/api.md)`);
  });

  it('is refused by startSentinelProxy too, which takes the sentinel keys besides', async () => {
    const options = { sentinels: ['127.0.0.1:1'], sentinelMaster: 'mymaster', sentinelRefresh: 50 } as SentinelProxyOptions;
    await expect(startSentinelProxy(options)).rejects.toMatchObject({
      name: 'ConfigError',
      flag: 'sentinelRefresh',
      message: `sentinelRefresh: invalid value 50; expected a key of startSentinelProxy()'s options (docs/api.md)`,
    });
  });

  it('refuses a hook of the wrong kind, naming it: a log of 5 started, then threw at its first line', async () => {
    const cases: [Partial<ProxyOptions>, string][] = [
      [{ log: 5 as unknown as ProxyOptions['log'] }, 'log: invalid value 5; expected a function of one line'],
      [{ onEvent: 'x' as unknown as ProxyOptions['onEvent'] }, 'onEvent: invalid value "x"; expected a function'],
      [{ stages: {} as unknown as ProxyOptions['stages'] }, 'stages: invalid value {}; expected an array of stage factories'],
    ];
    for (const [bad, message] of cases) {
      const err = await startProxy({ upstream: '127.0.0.1:1', ...bad }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toBe(message);
    }
  });

  it('leaves every schema key and hook alone: a proxy starts with all the hooks given', async () => {
    await using redis = await startPrivateRedis();
    const scheduler = new PreciseScheduler();
    // Required: a hook added to ProxyHooks and not to the check's list fails to compile here, then to start.
    const hooks: Required<Omit<ProxyOptions, keyof typeof PROXY_OPTIONS.shape>> = {
      onEvent: () => {},
      keyHash: (key) => key.toString('hex'),
      onLinkChange: () => {},
      log: () => {},
      stages: [],
      scheduler,
      onNodeLinkChange: () => {},
    };
    try {
      const proxy = await startProxy({ upstream: redis.address, argSizes: true, ...hooks });
      expect(proxy.port).toBeGreaterThan(0);
      await proxy.close();
    } finally {
      scheduler.close();
    }
  });
});
