import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseAllowHost } from '../../src/http/guard.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

describe('--allow-host takes only what a Host header can name', () => {
  it('names, addresses and ports as a Host header carries them', () => {
    expect(parseAllowHost('rtt.lan')).toEqual({ name: 'rtt.lan', port: undefined });
    expect(parseAllowHost('Toxiproxy:8474')).toEqual({ name: 'toxiproxy', port: 8474 });
    expect(parseAllowHost('my_service')).toEqual({ name: 'my_service', port: undefined });
    expect(parseAllowHost('10.0.0.7:7070')).toEqual({ name: '10.0.0.7', port: 7070 });
    expect(parseAllowHost('[fe80::1]:9000')).toEqual({ name: 'fe80::1', port: 9000 });
  });

  it('refuses what no Host header could match, naming the flag and the text as typed', () => {
    for (const text of ['-1', '-foo', 'foo-', 'foo/bar', 'a..b', '*', 'host:0', 'x:65536', 'a b', '', 'http://x']) {
      const err = (() => {
        try {
          parseAllowHost(text, '--allow-host');
        } catch (e) {
          return e;
        }
      })();
      expect(err, text).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message.startsWith(`--allow-host: invalid value ${JSON.stringify(text)}; expected a host name`), text).toBe(true);
    }
  });

  it('the CLI exits 2 naming --allow-host, for the proxy and for redis-rtt server (-1 started a proxy)', async () => {
    const proxy = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--allow-host', '-1']);
    expect([proxy.code, proxy.stdout, proxy.stderr]).toEqual([2, '', expect.stringMatching(/^redis-rtt: --allow-host: invalid value "-1"; expected a host name/)]);
    const server = await runCli(['server', '--api', '127.0.0.1:0', '--allow-host', 'foo/bar']);
    expect([server.code, server.stdout, server.stderr]).toEqual([2, '', expect.stringMatching(/^redis-rtt: --allow-host: invalid value "foo\/bar"; expected a host name/)]);
  });
});
