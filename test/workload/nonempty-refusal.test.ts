/** `bench --redis` against a non-empty database refuses before it prints any estimate (the built binary). */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/private-redis.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
  const [host, port] = redis.address.split(':') as [string, string];
  execFileSync('redis-cli', ['-h', host, '-p', port, 'SET', 'someone-elses-key', 'v']);
});
afterAll(() => redis?.stop());

describe('bench --redis on a non-empty database', () => {
  it('refuses first: exit 2, the refusal, and no estimate or sample before it', async () => {
    const r = await runCli(['bench', '--redis', redis.address, '--links', 'direct', '--modes', 'seq', '-n', '10', '--driver-warmup', '0']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--redis.*holds 1 key/);
    expect(r.stderr).not.toMatch(/estimated|configurations,|sample/);
  });
});
