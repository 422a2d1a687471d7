import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

describe('--announce-host takes a host name or an address only', () => {
  it('refuses what would break the replies it is written into (a space splits a CLUSTER NODES line), naming the flag', async () => {
    for (const bad of ['-1', 'a b', 'foo/bar', 'a..b', '']) {
      const err = await startProxy({ upstream: '127.0.0.1:1', announceHost: bad, log: () => {} }).catch((e: unknown) => e);
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message, bad).toBe(`--announce-host: invalid value ${JSON.stringify(bad)}; expected a host name or an IPv4 or IPv6 address`);
    }
    const cli = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--announce-host', '-1']);
    expect([cli.code, cli.stderr]).toEqual([2, 'redis-rtt: --announce-host: invalid value "-1"; expected a host name or an IPv4 or IPv6 address\n']);
  });

  it('takes names and v4 and v6 addresses (a proxy that starts, on a closed upstream it only probes later)', async () => {
    for (const good of ['rtt.lan', 'my_service', '10.0.0.7', '::1']) {
      const p = await startProxy({ upstream: '127.0.0.1:1', announceHost: good, compensationUs: { up: 0, down: 0 }, log: () => {} });
      await p.close();
      expect(p.address, good).toMatch(/^127\.0\.0\.1:\d+$/);
    }
  });
});
