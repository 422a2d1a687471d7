import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, withTypedValue } from '../../src/errors.js';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runCli, runClis } from '../hardening/helpers/cli-proxy.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('errors a run raises about a parsed flag quote the text typed, not the number', () => {
  it('bench --max-seconds (it printed `invalid value 0.001`, unquoted, for "0.0010")', async () => {
    const r = await runCli(['bench', '--redis', redis.address, '--max-seconds', '0.0010', '-n', '100000', '--links', 'direct', '--modes', 'seq']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/^redis-rtt: --max-seconds: invalid value "0\.0010"; expected a bound one sample fits in/m)]);
  });

  it('calibrate --samples (it printed `invalid value 90` for "090")', async () => {
    const r = await runCli(['calibrate', '--samples', '090', '--rounds', '5']);
    expect([r.code, r.stderr]).toEqual([2, 'redis-rtt: --samples: invalid value "090"; expected at least 100 with --rounds 5 (20 PINGs a round: a round\'s median of fewer is mostly noise)\n']);
  });

  it('bench --cluster --client-zones (it printed "3" for "03")', async () => {
    const r = await runCli(['bench', '--cluster', '--zones', '2', '--client-zones', '03']);
    expect([r.code, r.stderr]).toEqual([2, 'redis-rtt: --client-zones: invalid value "03"; expected at most --zones (2)\n']);
  });

  it('proxy --zones and --client-zones against a single Redis (they printed "2" for "002")', async () => {
    const zones = await runCli(['proxy', '--upstream', redis.address, '--zones', '002']);
    expect([zones.code, zones.stderr]).toEqual([2, expect.stringMatching(/^redis-rtt: --zones: invalid value "002"; expected cluster or Sentinel mode only/m)]);
    const clientZones = await runCli(['proxy', '--upstream', redis.address, '--client-zones', '01']);
    expect([clientZones.code, clientZones.stderr]).toEqual([2, expect.stringMatching(/^redis-rtt: --client-zones: invalid value "01"; expected cluster or Sentinel mode only/m)]);
  });

  it('proxy --connect-timeout that rounds to 0 ms: the text typed, and --print-config refuses it as the start does (it printed 0, or exited 0)', async () => {
    for (const extra of [[], ['--print-config']]) {
      const r = await runCli(['proxy', '--upstream', redis.address, '--connect-timeout', '0.1ms', ...extra]);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', 'redis-rtt: --connect-timeout: invalid value "0.1ms"; expected a duration from 1ms to 1 hour, in whole milliseconds\n']);
    }
  });

  it('--print-config exits 2 on every option the start refuses, quoting the text typed (it printed them and exited 0)', async () => {
    const cases: [string[], string][] = [
      [['--warm-up', '100001'], '--warm-up: invalid value "100001"; expected a whole number from 0 to 100000'],
      [['--high-water', '1kb'], '--high-water: invalid value "1kb"; expected a byte count of at least 1024'],
      [['--control-token='], '--control-token: invalid value ""; expected a non-empty token'],
      [['--control', '0.0.0.0:0'], '--control: invalid value "0.0.0.0"; expected a loopback address'],
      [['--upstream-user', 'bob'], '--upstream-user: invalid value "bob"; expected a password with it'],
    ];
    const runs = await runClis(cases.map(([args]) => ['proxy', '--upstream', redis.address, ...args, '--print-config']));
    for (const [i, [args, message]] of cases.entries()) {
      const r = runs[i]!;
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', expect.stringContaining(`redis-rtt: ${message}`)]);
    }
  }, 30_000);

  it('withTypedValue re-says only a plain ConfigError of a flag it has the text of', () => {
    const err = new ConfigError('--max-seconds', 0.001, 'a bound');
    expect((withTypedValue(err, { '--max-seconds': '0.0010' }) as Error).message).toBe('--max-seconds: invalid value "0.0010"; expected a bound');
    expect(withTypedValue(err, { '--other': 'x' })).toBe(err);
    expect(withTypedValue(err, { '--max-seconds': undefined })).toBe(err);
    const plain = new Error('boom');
    expect(withTypedValue(plain, { '--max-seconds': '1' })).toBe(plain);
  });
});
