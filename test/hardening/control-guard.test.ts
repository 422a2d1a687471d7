import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { bindPolicy, HttpGuard } from '../../src/http/guard.js';
import { startSingleNodeProxy } from '../../src/proxy/index.js';
import type { RedisRttProxy } from '../../src/proxy/types.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { startCliProxy } from './helpers/cli-proxy.js';
import { controlRequest, type ControlResponse } from './helpers/http.js';

function expect403(r: ControlResponse, says: RegExp): void {
  expect(r.status, r.body).toBe(403);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect((JSON.parse(r.body) as { error: string }).error).toMatch(says);
}

describe('HttpGuard decisions', () => {
  const guard = new HttpGuard({ bound: { kind: 'tcp', host: '127.0.0.1', port: 7070 }, allowHosts: ['rtt.lan', 'box:9000'] });
  it('accepts the bound address, loopback names with its port, and --allow-host names', () => {
    for (const host of ['127.0.0.1:7070', 'localhost:7070', 'LOCALHOST:7070', '[::1]:7070', 'rtt.lan:7070', 'rtt.lan:1234', 'box:9000']) {
      expect(guard.check({ host }), host).toEqual({ allow: true });
    }
    expect(guard.check({ host: 'localhost:7070', origin: 'http://localhost:7070' })).toEqual({ allow: true });
  });
  it('refuses other Hosts, other ports, a missing Host and foreign or null Origins with 403', () => {
    for (const host of ['evil.example:7070', '127.0.0.1:7071', 'localhost', 'box:9001', 'localhost.:7070', '127.0.0.1:7070@evil', '']) {
      expect(guard.check({ host }), host).toMatchObject({ allow: false, status: 403 });
    }
    expect(guard.check({})).toMatchObject({ allow: false, status: 403 });
    for (const origin of ['http://evil.example', 'null', 'file://', 'http://localhost:7070/x', 'http://127.0.0.1:9999']) {
      expect(guard.check({ host: '127.0.0.1:7070', origin }), origin).toMatchObject({ allow: false, status: 403 });
    }
  });
  it('checks the token after Host and Origin, whatever its length', () => {
    const t = new HttpGuard({ bound: { kind: 'tcp', host: '127.0.0.1', port: 1 }, token: 's3cret' });
    // The scheme in any case, as RFC 7235 has it; the token exactly.
    for (const authorization of ['Bearer s3cret', 'bearer s3cret', 'BEARER s3cret']) {
      expect(t.check({ host: '127.0.0.1:1', authorization })).toEqual({ allow: true });
    }
    for (const authorization of ['Bearer s3cre', 'Bearer s3cret!', 'Bearer ', 's3cret', 'Bearer S3CRET', 'Bearers3cret']) {
      expect(t.check({ host: '127.0.0.1:1', authorization })).toMatchObject({ allow: false, status: 401 });
    }
    expect(t.check({ host: 'evil:1', authorization: 'Bearer s3cret' })).toMatchObject({ status: 403 });
  });
  it('a wildcard bind needs --allow-host or a token; with a token only, any Host passes the Host check', () => {
    const bound = { kind: 'tcp' as const, host: '0.0.0.0', port: 7070 };
    expect(() => bindPolicy({ bound }, '--control')).toThrow(ConfigError);
    expect(() => bindPolicy({ bound: { ...bound, host: '::' } }, '--control')).toThrow(ConfigError);
    expect(bindPolicy({ bound, token: 't' }, '--control')).toMatch(/reachable from other machines$/);
    expect(bindPolicy({ bound, allowHosts: ['rtt.lan'] }, '--control')).toMatch(/no control token/);
    expect(bindPolicy({ bound: { ...bound, host: '127.0.0.1' } }, '--control')).toBeUndefined();
    expect(() => bindPolicy({ bound, allowHosts: ['bad host'] }, '--control')).toThrow(/--allow-host/);
    const remote = new HttpGuard({ bound, token: 't' });
    expect(remote.check({ host: '10.1.2.3:7070', authorization: 'Bearer t' })).toEqual({ allow: true });
    expect(remote.check({ host: '10.1.2.3:7070' })).toMatchObject({ status: 401 });
    expect(remote.check({ host: '10.1.2.3:7070', origin: 'http://evil.example', authorization: 'Bearer t' })).toMatchObject({ status: 403 });
  });
});

describe('the control endpoint of a real proxy refuses browsers and rebinding', () => {
  let redis: PrivateRedis;
  let proxy: RedisRttProxy;
  let client: Redis;
  let at: string;
  let port: number;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    proxy = await startSingleNodeProxy({ upstream: redis.address, control: '127.0.0.1:0', link: { rttUs: 200 }, compensationUs: { up: 0, down: 0 }, log: () => undefined });
    at = proxy.controlAddress!;
    port = Number(at.slice(at.lastIndexOf(':') + 1));
    client = new Redis({ host: proxy.host, port: proxy.port, lazyConnect: true });
    await client.connect();
    await client.set('k', 'v');
  });
  afterAll(async () => {
    client?.disconnect();
    await proxy?.close();
    await redis?.stop();
  });

  it('a cross-site simple request (foreign Origin, text/plain) changes nothing', async () => {
    const before = proxy.stats().totals.commands;
    expect(before).toBeGreaterThan(0);
    const browser = { origin: 'http://evil.example', 'content-type': 'text/plain' };
    expect403(await controlRequest(at, 'PUT', '/link', { body: '{"rttUs": 90000}', headers: browser }), /cross-origin/);
    expect403(await controlRequest(at, 'POST', '/link', { body: '{"rttUs": 90000}', headers: browser }), /cross-origin/);
    expect403(await controlRequest(at, 'POST', '/reset', { headers: browser }), /cross-origin/);
    expect403(await controlRequest(at, 'POST', '/reset', { headers: { origin: 'null' } }), /cross-origin/);
    expect403(await controlRequest(at, 'GET', '/stats', { headers: { origin: 'http://evil.example' } }), /cross-origin/);
    expect(proxy.link()).toMatchObject({ upUs: 100, downUs: 100 });
    expect(proxy.stats().totals.commands).toBe(before);
  });

  it('a rebinding request (Host: evil.example) cannot read /stats or /metrics', async () => {
    for (const path of ['/stats', '/metrics', '/connections', '/link']) {
      expect403(await controlRequest(at, 'GET', path, { headers: { host: `evil.example:${port}` } }), /Host/);
    }
    expect403(await controlRequest(at, 'GET', '/stats', { headers: { host: `127.0.0.1:${port + 1}` } }), /Host/);
  });

  it('curl-style requests work: no content type on PUT, POST /reset with no body, localhost Host', async () => {
    const put = await controlRequest(at, 'PUT', '/link', { body: '{"rttUs": 400}', headers: { host: `localhost:${port}` } });
    expect(put.status, put.body).toBe(200);
    expect(proxy.link()).toMatchObject({ upUs: 200, downUs: 200 });
    expect((await controlRequest(at, 'POST', '/reset')).status).toBe(200);
    expect(proxy.stats().totals.commands).toBe(0);
    expect((await controlRequest(at, 'GET', '/stats', { headers: { origin: `http://127.0.0.1:${port}` } })).status).toBe(200);
  });

  it('--allow-host names are accepted', async () => {
    const p = await startSingleNodeProxy({ upstream: redis.address, control: '127.0.0.1:0', allowHosts: ['rtt.lan'], compensationUs: { up: 0, down: 0 }, log: () => undefined });
    try {
      expect((await controlRequest(p.controlAddress!, 'GET', '/stats', { headers: { host: 'rtt.lan:80' } })).status).toBe(200);
      expect403(await controlRequest(p.controlAddress!, 'GET', '/stats', { headers: { host: 'other.lan:80' } }), /Host/);
    } finally {
      await p.close();
    }
  });
});

describe('the CLI takes the token from REDIS_RTT_CONTROL_TOKEN', () => {
  it('requires it on requests, keeps it off argv and out of its output', async () => {
    const saved = process.env.REDIS_RTT_CONTROL_TOKEN;
    process.env.REDIS_RTT_CONTROL_TOKEN = 'env-t0ken-XYZ';
    let p;
    try {
      p = await startCliProxy(['--upstream', '127.0.0.1:1', '--control', '127.0.0.1:0']);
    } finally {
      if (saved === undefined) delete process.env.REDIS_RTT_CONTROL_TOKEN;
      else process.env.REDIS_RTT_CONTROL_TOKEN = saved;
    }
    try {
      const at = p.line.control!;
      expect((await controlRequest(at, 'GET', '/stats')).status).toBe(401);
      expect((await controlRequest(at, 'GET', '/stats', { token: 'env-t0ken-XYZ' })).status).toBe(200);
      const { readFileSync } = await import('node:fs');
      expect(readFileSync(`/proc/${p.pid}/cmdline`, 'utf8')).not.toContain('env-t0ken');
      expect(p.stderr() + p.stdout()).not.toContain('env-t0ken');
    } finally {
      await p.stop();
    }
  });
});
