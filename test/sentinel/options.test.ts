import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { sentinelFromFlags } from '../../src/cli/sentinel-flags.js';
import { DEFAULT_SENTINEL_REFRESH_MS, sentinelSettings } from '../../src/sentinel/options.js';

describe('sentinelSettings', () => {
  const base = { sentinels: ['127.0.0.1:26379'], sentinelMaster: 'mymaster' };

  it('refreshes every second unless told, and at most every 10 ms: shorter would ask the sentinels back to back', () => {
    expect(sentinelSettings(base).refreshMs).toBe(DEFAULT_SENTINEL_REFRESH_MS);
    expect(sentinelSettings({ ...base, sentinelRefreshMs: 10 }).refreshMs).toBe(10);
    for (const sentinelRefreshMs of [0.001, 9, 0, -5]) {
      expect(() => sentinelSettings({ ...base, sentinelRefreshMs })).toThrow(ConfigError);
      expect(() => sentinelSettings({ ...base, sentinelRefreshMs })).toThrow('sentinelRefreshMs: invalid value');
      expect(() => sentinelSettings({ ...base, sentinelRefreshMs })).toThrow('expected milliseconds, at least 10');
    }
  });

  it("refuses a period above Node's timer limit: its setInterval would fire every millisecond, asking the sentinels back to back", () => {
    const limitMs = 2 ** 31 - 1;
    expect(sentinelSettings({ ...base, sentinelRefreshMs: limitMs }).refreshMs).toBe(limitMs);
    for (const sentinelRefreshMs of [limitMs + 1, 1e12]) {
      expect(() => sentinelSettings({ ...base, sentinelRefreshMs })).toThrow(ConfigError);
      expect(() => sentinelSettings({ ...base, sentinelRefreshMs })).toThrow(`sentinelRefreshMs: invalid value ${sentinelRefreshMs}; expected milliseconds, at most ${limitMs}`);
    }
  });

  it('refuses an item holding a list: its host would be "a:1,b" and the start would say no sentinel answers', () => {
    const sentinels = ['127.0.0.1:26379,127.0.0.1:26380'];
    expect(() => sentinelSettings({ ...base, sentinels })).toThrow(
      new ConfigError('--sentinel', sentinels[0], 'one host:port per item (the --sentinel flag splits a comma-separated list; the option and the key do not)'),
    );
    expect(() => sentinelSettings({ ...base, sentinels: ['127.0.0.1 :26379'] })).toThrow(ConfigError);
    expect(sentinelSettings({ ...base, sentinels: ['[::1]:26379', 'localhost'] }).addresses).toEqual([
      { host: '::1', port: 26379 },
      { host: 'localhost', port: 26379 },
    ]);
  });

  it("refuses cluster mode's discovery keys, which sentinel mode would drop without a word, naming its own", () => {
    expect(() => sentinelSettings({ ...base, upstreamUser: 'bob' })).toThrow(new ConfigError('upstreamUser', 'bob', "sentinelUser in sentinel mode (upstreamUser is cluster mode's)"));
    // The password is not shown, as everywhere.
    expect(() => sentinelSettings({ ...base, upstreamPassword: 's3cret' })).toThrow(
      new ConfigError('upstreamPassword', '(redacted)', "sentinelPassword in sentinel mode (upstreamPassword is cluster mode's)"),
    );
    expect(() => sentinelSettings({ ...base, topologyRefreshMs: 50 })).toThrow(
      new ConfigError('topologyRefreshMs', 50, "sentinelRefreshMs in sentinel mode (topologyRefreshMs is cluster mode's)"),
    );
  });
});

describe('sentinelFromFlags', () => {
  it('refuses --upstream-user with --sentinel: the sentinels would be asked without the login the user meant', () => {
    const flags = { sentinel: ['127.0.0.1:26379'], sentinelMaster: 'mymaster', cluster: 'auto' };
    expect(sentinelFromFlags(flags)).toMatchObject({ sentinels: flags.sentinel });
    expect(() => sentinelFromFlags({ ...flags, upstreamUser: 'bob' })).toThrow(
      new ConfigError('--upstream-user', 'bob', '--sentinel-user with --sentinel (and REDIS_RTT_SENTINEL_PASSWORD)'),
    );
  });
});
