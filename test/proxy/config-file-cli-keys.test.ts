import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';
import { configFiles } from '../helpers/config-files.js';

const files = configFiles('redis-rtt-cli-keys-');
let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
  files.remove();
});

describe('config file keys of the CLI', () => {
  it('statsJson is --stats-json: written when the proxy stops, shown by --print-config, and the flag wins', async () => {
    const summary = join(files.dir, 'summary.json');
    const config = files.file({ upstream: redis.address, listen: '127.0.0.1:0', statsJson: summary });
    const printed = await runCli(['proxy', '--config', config, '--print-config']);
    expect([printed.code, JSON.parse(printed.stdout).statsJson]).toEqual([0, summary]);
    const p = await startCliProxy(['--config', config]);
    expect((await p.stop('SIGTERM')).code).toBe(0);
    expect(JSON.parse(readFileSync(summary, 'utf8'))).toMatchObject({ connections: { total: 0 } });
    const flag = join(files.dir, 'flag.json');
    const q = await startCliProxy(['--config', files.file({ upstream: redis.address, listen: '127.0.0.1:0', statsJson: join(files.dir, 'not.json') }), '--stats-json', flag]);
    expect((await q.stop('SIGTERM')).code).toBe(0);
    expect([existsSync(flag), existsSync(join(files.dir, 'not.json'))]).toEqual([true, false]);
  }, 30_000);

  it('statsJson that is no path exits 2 naming the file and key', async () => {
    const config = files.file({ upstream: redis.address, statsJson: '' });
    const r = await runCli(['proxy', '--config', config, '--print-config']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(`${config}: statsJson: invalid value ""; expected a file path`)]);
  });

  it('sentinelMaster or sentinelUser without sentinels exits 2 naming the key, not a flag the user never typed', async () => {
    for (const key of ['sentinelMaster', 'sentinelUser']) {
      const config = files.file({ upstream: redis.address, [key]: 'mymaster' });
      const r = await runCli(['proxy', '--config', config, '--print-config']);
      expect([r.code, r.stderr], key).toEqual([2, `redis-rtt: ${config}: ${key}: invalid value "mymaster"; expected to be used with sentinels (--sentinel, or the sentinels key)\n`]);
    }
    // The flag itself is still named as the flag, the file or not.
    const flag = await runCli(['proxy', '--config', files.file({ upstream: redis.address }), '--sentinel-master', 'mymaster', '--print-config']);
    expect([flag.code, flag.stderr]).toEqual([2, 'redis-rtt: --sentinel-master: invalid value "mymaster"; expected to be used with --sentinel\n']);
  });
});
