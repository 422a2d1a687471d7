/**
 * `bench --redis` against a non-empty database, a Cluster node without --cluster, a Redis that wants a password
 * or an address given as a URL refuses before it prints any estimate (the built binary).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

let redis: PrivateRedis;
/** A lone node started in cluster mode, no slots: INFO says redis_mode:cluster, as a real cluster's nodes do. */
let clusterNode: PrivateRedis;
/** One with requirepass: the CLI has no password to give it. */
let locked: PrivateRedis;
/** A Sentinel: a user's address for their Sentinel set-up, not its primary. */
let sentinel: PrivateRedis;
beforeAll(async () => {
  [redis, clusterNode, locked, sentinel] = await Promise.all([
    startPrivateRedis(),
    startPrivateRedis({ args: ['--cluster-enabled', 'yes'] }),
    startPrivateRedis({ args: ['--requirepass', 'sekret'] }),
    // Watching a primary that is not there: it answers INFO all the same, and no data command.
    startPrivateRedis({ sentinel: true, args: ['--sentinel', 'monitor', 'm', '127.0.0.1', '1', '1'] }),
  ]);
  const [host, port] = redis.address.split(':') as [string, string];
  execFileSync('redis-cli', ['-h', host, '-p', port, 'SET', 'someone-elses-key', 'v']);
});
afterAll(() => Promise.all([redis?.stop(), clusterNode?.stop(), locked?.stop(), sentinel?.stop()]));

describe('bench --redis on a non-empty database', () => {
  it('refuses first: exit 2, the refusal, and no estimate or sample before it', async () => {
    const r = await runCli(['bench', '--redis', redis.address, '--links', 'direct', '--modes', 'seq', '-n', '10', '--driver-warmup', '0']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--redis.*holds 1 key/);
    expect(r.stderr).not.toMatch(/estimated|configurations,|sample/);
  });
});

describe('bench --redis on a Cluster node without --cluster', () => {
  // Each configuration used to fail on MOVED one by one (exit 1), and the open loop died on a stack trace.
  it('refuses first, closed and open loop: exit 2 naming --redis and --cluster, nothing measured', async () => {
    const closedLoop = ['--links', 'local', '--modes', 'seq', '-n', '10', '--driver-warmup', '0'];
    const openLoop = ['--links', 'local', '--rate', '100', '--duration', '200ms'];
    const runs = await Promise.all([closedLoop, openLoop].map((flags) => runCli(['bench', '--redis', clusterNode.address, ...flags])));
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--redis: invalid value "${clusterNode.address}"; expected a single Redis (INFO says redis_mode:cluster): add --cluster`);
      expect(r.stderr).not.toMatch(/estimated|MOVED|CLUSTERDOWN|achieved|\n {4}at /);
    }
  });

  // A Sentinel answered DBSIZE with an error: a ReplyError stack trace, exit 1.
  it('a Sentinel\'s address is refused the same way, naming what to give instead', async () => {
    const r = await runCli(['bench', '--redis', sentinel.address, '--links', 'local', '--modes', 'seq', '-n', '10', '--driver-warmup', '0']);
    expect([r.code, r.stderr]).toEqual([
      2,
      `redis-rtt: --redis: invalid value "${sentinel.address}"; expected a Redis, not a Sentinel (INFO says redis_mode:sentinel): ` +
        "give the primary's host:port (SENTINEL GET-MASTER-ADDR-BY-NAME)\n",
    ]);
  });
});

describe('bench --redis that does not answer', () => {
  // It said "could not connect to 127.0.0.1:1: Connection is closed.": ioredis's words, the cause left out.
  it('exits 1 naming the address and the cause', async () => {
    const r = await runCli(['bench', '--redis', '127.0.0.1:1', '--links', 'local', '-n', '10', '--driver-warmup', '0']);
    expect([r.code, r.stderr]).toEqual([1, 'redis-rtt: could not connect to 127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1\n']);
  });
});

describe('bench --redis that wants a password, or given as a URL', () => {
  // NOAUTH was a ReplyError stack trace (exit 1); a URL was taken as the host "redis://:sekret@127.0.0.1", and the
  // connect error printed the password.
  it('exits 2 naming --redis: NOAUTH said plainly, closed and open loop; a URL refused with its password left out', async () => {
    const closedLoop = ['--links', 'local', '--modes', 'seq', '-n', '10', '--driver-warmup', '0'];
    const openLoop = ['--links', 'local', '--rate', '100', '--duration', '200ms'];
    const url = `redis://:sekret@${redis.address}`;
    const [closed, open, asUrl] = await Promise.all([
      runCli(['bench', '--redis', locked.address, ...closedLoop]),
      runCli(['bench', '--redis', locked.address, ...openLoop]),
      runCli(['bench', '--redis', url, ...closedLoop]),
    ]);
    for (const r of [closed, open]) {
      expect([r.code, r.stderr]).toEqual([
        2,
        `redis-rtt: --redis: invalid value "${locked.address}"; expected a Redis the bench may use without a password: it answered ` +
          'NOAUTH (requirepass or an ACL); the CLI sends none (runBench() and runOpenLoopBench() take `password`)\n',
      ]);
    }
    expect([asUrl.code, asUrl.stderr]).toEqual([
      2,
      `redis-rtt: --redis: invalid value "redis://(redacted)@${redis.address}"; expected "host:port" (port 1-65535) or "unix:/path/to.sock", not a URL\n`,
    ]);
  });
});
