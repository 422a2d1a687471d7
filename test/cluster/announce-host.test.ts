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

  it('takes names and v4 and v6 addresses: against a single Redis the refusal is then the mode\'s, not the value\'s', async () => {
    for (const good of ['rtt.lan', 'my_service', '10.0.0.7', '::1']) {
      const err = await startProxy({ upstream: '127.0.0.1:1', announceHost: good, log: () => {} }).catch((e: unknown) => e);
      expect(err, good).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message, good).toBe(
        `--announce-host: invalid value ${JSON.stringify(good)}; expected cluster or Sentinel mode only (--cluster on, or auto against a cluster node; --sentinel); ` +
          "a single Redis's replies are not rewritten, so no host is announced",
      );
    }
  });

  it('names a bad --listen-ports, --zones or --client-zones as a bad value before saying a single Redis has no nodes', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ listenPorts: '9-2' }, '--listen-ports: invalid value "9-2"; expected a port range A-B with 1 <= A <= B <= 65535'],
      [{ zones: 0 }, '--zones: invalid value 0'],
      [{ zones: 2, clientZones: 1.5 }, '--client-zones: invalid value 1.5'],
    ];
    for (const [extra, message] of cases) {
      const err = await startProxy({ upstream: '127.0.0.1:1', ...extra, log: () => {} }).catch((e: unknown) => e);
      expect(err, message).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message, message).toContain(message);
      expect((err as ConfigError).message, message).not.toContain('cluster or Sentinel mode only');
    }
  });
});
