import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runCli, startCliProxy } from './helpers/cli-proxy.js';
import { controlRequest } from './helpers/http.js';

const run = promisify(execFile);

describe('safe defaults: loopback unless told otherwise, and a warning when told', () => {
  it('listens on 127.0.0.1 and starts no control endpoint by default', async () => {
    const p = await startCliProxy(['--upstream', '127.0.0.1:1']);
    try {
      expect(p.line.listen).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(p.line.control).toBeNull();
      expect(p.stderr()).not.toMatch(/reachable from other machines/);
    } finally {
      await p.stop();
    }
  });

  it('--listen 0.0.0.0:0 and --control 0.0.0.0:0 warn on stderr (and say when there is no token)', async () => {
    const bare = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--control', '0.0.0.0:0']);
    expect(bare.code, bare.stderr).toBe(2);
    expect(bare.stderr).toMatch(/--control.*--allow-host/);
    const p = await startCliProxy(['--upstream', '127.0.0.1:1', '--listen', '0.0.0.0:0', '--control', '0.0.0.0:0', '--allow-host', 'rtt.lan']);
    try {
      expect(p.stderr()).toMatch(/warning: listening on 0\.0\.0\.0:\d+, reachable from other machines; the proxy has no authentication of its own/);
      expect(p.stderr()).toMatch(/warning: control endpoint on 0\.0\.0\.0 is reachable from other machines and has no control token/);
    } finally {
      await p.stop();
    }
    const q = await startCliProxy(['--upstream', '127.0.0.1:1', '--control', '0.0.0.0:0', '--control-token', 't0ken']);
    try {
      expect(q.stderr()).toMatch(/warning: control endpoint on 0\.0\.0\.0 is reachable from other machines\n/);
      expect(q.stderr()).not.toContain('t0ken');
      expect((await controlRequest(q.line.control!.replace('0.0.0.0', '127.0.0.1'), 'GET', '/stats')).status).toBe(401);
    } finally {
      await q.stop();
    }
  });
});

describe('nothing the proxy writes contains a value or a credential', () => {
  const PASSWORD = 'hunter2-SECRET';
  const VALUE = 'value-SECRET-42';
  const KEY = 'key-SECRET-7';
  /** Case-insensitive: command names are upper-cased, so an upper-case copy would count too. */
  const SECRETS = [/hunter2/i, /value-SECRET-42/i, /key-SECRET-7/i];

  let redis: PrivateRedis;
  let dir: string;
  beforeAll(async () => {
    redis = await startPrivateRedis({ args: ['--requirepass', PASSWORD] });
    dir = await mkdtemp(join(tmpdir(), 'redis-rtt-secrets-'));
  });
  afterAll(async () => {
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function expectClean(what: string, text: string): void {
    for (const secret of SECRETS) expect(secret.test(text), `${what} contains ${secret}`).toBe(false);
  }

  it('stats, metrics, connections, the log, the summary, --stats-json and a --record trace', { timeout: 60_000 }, async () => {
    const trace = join(dir, 'trace.rrt');
    const statsJson = join(dir, 'stats.json');
    const p = await startCliProxy([
      '--upstream', redis.address, '--control', '127.0.0.1:0', '--rtt', '1ms', '--record', trace, '--stats-json', statsJson,
    ]);
    const c = new Redis({ host: p.host, port: p.port, password: PASSWORD, lazyConnect: true, maxRetriesPerRequest: 0 });
    const v2 = new Redis({ host: p.host, port: p.port, password: PASSWORD, protocol: 2, lazyConnect: true, maxRetriesPerRequest: 0 });
    const wrong = new Redis({ host: p.host, port: p.port, password: `${PASSWORD}-wrong`, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    wrong.on('error', () => undefined); // WRONGPASS is the point of this client
    try {
      await c.connect();
      await v2.connect();
      expect(await c.set(KEY, VALUE)).toBe('OK');
      expect(await c.get(KEY)).toBe(VALUE);
      expect(await v2.getset(KEY, VALUE)).toBe(VALUE);
      expect(await c.hset(`h:${KEY}`, VALUE, VALUE)).toBe(1);
      expect(await c.publish(`ch:${KEY}`, VALUE)).toBe(0);
      await c.eval(`return redis.call('GET', KEYS[1])`, 1, KEY);
      await expect(c.call('AUTH', `${PASSWORD}-typo`)).rejects.toThrow(/WRONGPASS/);
      await expect(wrong.connect()).rejects.toThrow();
      const cli = await run('redis-cli', ['-h', p.host, '-p', String(p.port), '--no-auth-warning', '-a', PASSWORD, 'GET', KEY]);
      expect(cli.stdout.trim()).toBe(VALUE);

      // While the connections are live:
      const ctl = p.line.control!;
      const stats = await controlRequest(ctl, 'GET', '/stats');
      const metrics = await controlRequest(ctl, 'GET', '/metrics');
      const conns = await controlRequest(ctl, 'GET', '/connections');
      expect([stats.status, metrics.status, conns.status]).toEqual([200, 200, 200]);
      expect(JSON.parse(stats.body).commands.SET.count).toBeGreaterThanOrEqual(1);
      expectClean('GET /stats', stats.body);
      expectClean('GET /metrics', metrics.body);
      expectClean('GET /connections', conns.body);
    } finally {
      c.disconnect();
      v2.disconnect();
      wrong.disconnect();
    }
    expect(await p.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expectClean('stderr (log and summary)', p.stderr());
    expectClean('stdout', p.stdout());
    expectClean('--stats-json', await readFile(statsJson, 'utf8'));
    const recorded = await readFile(trace);
    expect(recorded.length).toBeGreaterThan(0);
    expectClean('--record trace', recorded.toString('latin1'));
  });
});
