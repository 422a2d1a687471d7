import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

/**
 * --listen-ports and --announce-host place and name the listeners of a cluster's other nodes: a
 * single Redis has none, and both were ignored without a word (the user expected them to apply).
 */
describe('--listen-ports and --announce-host against a single Redis', () => {
  let redis: PrivateRedis;
  const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-single-cluster-flags-'));
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exit 2 naming the flag, from the command line and from a config file', { timeout: 60_000 }, async () => {
    const config = (key: string, value: string): string => {
      const path = join(dir, `${key}.json`);
      writeFileSync(path, JSON.stringify({ upstream: redis.address, listen: '127.0.0.1:0', [key]: value }));
      return path;
    };
    const cases = [
      ['--listen-ports', '7100-7110', ['--upstream', redis.address, '--listen', '127.0.0.1:0', '--listen-ports', '7100-7110']],
      ['--announce-host', 'proxy.example', ['--upstream', redis.address, '--listen', '127.0.0.1:0', '--cluster', 'off', '--announce-host', 'proxy.example']],
      ['--listen-ports', '7100-7110', ['--config', config('listenPorts', '7100-7110')]],
      ['--announce-host', 'proxy.example', ['--config', config('announceHost', 'proxy.example')]],
    ] as const;
    for (const [flag, value, args] of cases) {
      const r = await runCli(['proxy', '--compensate', '0', ...args]);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toMatch(new RegExp(`^redis-rtt: ${flag}: invalid value "${value}"; expected cluster or Sentinel mode only`, 'm'));
    }
  });

  it('the library refuses them with a ConfigError naming the option key', async () => {
    await expect(startProxy({ upstream: redis.address, listen: '127.0.0.1:0', cluster: 'off', listenPorts: '7100-7110' })).rejects.toThrow(
      /^listenPorts: invalid value "7100-7110"; expected cluster or Sentinel mode only/,
    );
    await expect(startProxy({ upstream: redis.address, listen: '127.0.0.1:0', announceHost: 'proxy.example' })).rejects.toThrow(
      /^announceHost: invalid value "proxy.example"; expected cluster or Sentinel mode only/,
    );
  });
});
