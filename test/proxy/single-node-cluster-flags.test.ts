import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSettings } from '../../src/cluster/cluster-settings.js';
import { startProxy } from '../../src/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runClis, startCliProxy } from '../hardening/helpers/cli-proxy.js';

/**
 * --listen-ports and --announce-host place and name the listeners of a cluster's other nodes, and
 * --same-zone-link and --cross-zone-link are the links of its zones: a single Redis has none of them,
 * and each was ignored without a word (the user expected it to apply).
 */
describe('cluster-only flags against a single Redis', () => {
  let redis: PrivateRedis;
  const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-single-cluster-flags-'));
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exit 2 naming the flag, or the key of a config file that gave it', { timeout: 60_000 }, async () => {
    const config = (key: string, value: string): string => {
      const path = join(dir, `${key}.json`);
      writeFileSync(path, JSON.stringify({ upstream: redis.address, listen: '127.0.0.1:0', [key]: value }));
      return path;
    };
    const cases = [
      ['--listen-ports', '7100-7110', ['--upstream', redis.address, '--listen', '127.0.0.1:0', '--listen-ports', '7100-7110']],
      ['--announce-host', 'proxy.example', ['--upstream', redis.address, '--listen', '127.0.0.1:0', '--cluster', 'off', '--announce-host', 'proxy.example']],
      // From a config file: the file and its key, as its other keys are named (the user typed no flag).
      ['listenPorts\\.json: listenPorts', '7100-7110', ['--config', config('listenPorts', '7100-7110')]],
      ['announceHost\\.json: announceHost', 'proxy.example', ['--config', config('announceHost', 'proxy.example')]],
      ['--same-zone-link', 'rtt=1ms', ['--upstream', redis.address, '--listen', '127.0.0.1:0', '--same-zone-link', 'rtt=1ms']],
      ['crossZoneLink\\.json: crossZoneLink', 'cross-region', ['--config', config('crossZoneLink', 'cross-region')]],
    ] as const;
    const runs = await runClis(cases.map(([, , args]) => ['proxy', '--compensate', '0', ...args]));
    for (const [i, [name, value, args]] of cases.entries()) {
      const r = runs[i]!;
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toMatch(new RegExp(`^redis-rtt: (\\S*/)?${name}: invalid value "${value}"; expected cluster or Sentinel mode only`, 'm'));
    }
  });

  it('the library refuses them with a ConfigError naming the option key', async () => {
    await expect(startProxy({ upstream: redis.address, listen: '127.0.0.1:0', cluster: 'off', listenPorts: '7100-7110' })).rejects.toThrow(
      /^listenPorts: invalid value "7100-7110"; expected cluster or Sentinel mode only/,
    );
    await expect(startProxy({ upstream: redis.address, listen: '127.0.0.1:0', announceHost: 'proxy.example' })).rejects.toThrow(
      /^announceHost: invalid value "proxy.example"; expected cluster or Sentinel mode only/,
    );
    await expect(startProxy({ upstream: redis.address, listen: '127.0.0.1:0', sameZoneLink: 'rtt=1ms' })).rejects.toThrow(
      /^sameZoneLink: invalid value "rtt=1ms"; expected cluster or Sentinel mode only/,
    );
  });

  it('a flag left at its default is not refused: the start runs', { timeout: 60_000 }, async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--compensate', '0', '--same-zone-link', 'same-az']);
    expect(await p.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });
});

describe('--same-zone-link and --cross-zone-link in cluster or Sentinel mode without --zones', () => {
  it('are refused naming the flag: without zones every node takes the link given', () => {
    const base = { upstream: '127.0.0.1:30001', listen: '127.0.0.1:0' };
    expect(() => clusterSettings({ ...base, crossZoneLink: 'rtt=3ms' }, () => {})).toThrow(/^--cross-zone-link: invalid value "rtt=3ms"; expected to be given with --zones/);
    expect(() => clusterSettings({ ...base, sameZoneLink: 'rtt=1ms' }, () => {})).toThrow(/^--same-zone-link: invalid value "rtt=1ms"; expected to be given with --zones/);
    expect(clusterSettings({ ...base, zones: 2, sameZoneLink: 'rtt=1ms' }, () => {}).zoneLinks?.same.name).toBe('rtt=1ms');
  });
});
