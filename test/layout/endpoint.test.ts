import { describe, expect, it } from 'vitest';
import { connectOptions, formatEndpoint, isLoopback, parseAddress, parseEndpoint } from '../../src/endpoint.js';

/** The one address module: every form it reads, it writes back the same way. */
describe('endpoint', () => {
  it('reads host:port, [ipv6]:port, unix:/path and /path, and formats them back', () => {
    for (const [text, formatted] of [
      ['127.0.0.1:6379', '127.0.0.1:6379'],
      ['[::1]:6380', '[::1]:6380'],
      ['unix:/tmp/r.sock', 'unix:/tmp/r.sock'],
      ['/tmp/r.sock', 'unix:/tmp/r.sock'],
    ] as const) {
      expect(formatEndpoint(parseEndpoint(text, '--x'))).toBe(formatted);
      expect(formatEndpoint(parseAddress(text))).toBe(formatted);
      expect(parseAddress(formatted)).toEqual(parseEndpoint(text, '--x'));
    }
    expect(parseEndpoint('[::1]:6380', '--x')).toEqual({ kind: 'tcp', host: '::1', port: 6380 });
    expect(connectOptions(parseAddress('unix:/tmp/r.sock'))).toEqual({ path: '/tmp/r.sock' });
    expect(connectOptions(parseAddress('h:1'))).toEqual({ host: 'h', port: 1 });
  });

  it('listen forms: port alone, :port and port 0 on the default host', () => {
    expect(parseEndpoint('7000', '--listen')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 7000 });
    expect(parseEndpoint(':0', '--listen', '0.0.0.0')).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 0 });
  });

  it('an address to connect to may leave out its port, an IPv6 one in brackets too: the default port', () => {
    expect(parseEndpoint('localhost', '--upstream', '127.0.0.1', 6379)).toEqual({ kind: 'tcp', host: 'localhost', port: 6379 });
    expect(parseEndpoint('[::1]', '--sentinel', '127.0.0.1', 26379)).toEqual({ kind: 'tcp', host: '::1', port: 26379 });
    // A listen address has no default port.
    expect(() => parseEndpoint('[::1]', '--listen')).toThrow(/--listen/);
  });

  it('a Redis address needs a host and a port 1-65535, and errors name the flag', () => {
    for (const bad of ['6379', ':6379', 'h:0', 'h:65536', 'h:x', 'unix:', './r.sock']) {
      expect(() => parseAddress(bad, '--redis'), bad).toThrow(/--redis: invalid value .*host:port/);
    }
    expect(() => parseEndpoint('h:99999', '--listen')).toThrow(/--listen/);
  });

  it('loopback in any spelling: an IPv4-mapped 127.x and the long ::1 were warned of as reachable from other machines', () => {
    const loopback = ['localhost', '127.0.0.1', '127.8.9.10', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::FFFF:7f00:1'];
    const remote = ['0.0.0.0', '::', '10.0.0.5', '::ffff:10.0.0.5', 'fe80::1', '::2', '127.example.com', 'example.com'];
    expect(loopback.filter((h) => !isLoopback(h))).toEqual([]);
    expect(remote.filter((h) => isLoopback(h))).toEqual([]);
  });

  it('a unix socket path longer than the system takes is refused, naming the flag: the system would cut it', () => {
    const limit = process.platform === 'linux' ? 107 : 103;
    const path = (bytes: number): string => `/tmp/${'s'.repeat(bytes - '/tmp/.sock'.length)}.sock`;
    expect(parseEndpoint(path(limit), '--listen')).toEqual({ kind: 'unix', path: path(limit) });
    for (const [text, flag] of [[path(limit + 1), '--listen'], [`unix:${path(limit + 1)}`, '--upstream'], [`unix:${path(limit + 1)}`, '--control']] as const) {
      expect(() => parseEndpoint(text, flag)).toThrow(`${flag}: invalid value "${path(limit + 1)}"; expected a unix socket path of at most ${limit} bytes (this one has ${limit + 1}`);
    }
    expect(() => parseAddress(`unix:${path(limit + 1)}`, '--redis')).toThrow(`--redis: invalid value "${path(limit + 1)}"; expected a unix socket path of at most`);
  });
});
