import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/redis/free-port.js';
import { configFiles } from '../helpers/config-files.js';
import { runClis } from '../hardening/helpers/cli-proxy.js';

/**
 * A sentinel-mode key of a --config file (sentinels, sentinelMaster, sentinelUser) whose value the
 * start refuses is named as the file holds it (`proxy.json: sentinelUser`), as the file's own checks
 * name it: the user typed no flag. A value typed on the command line is still named by its flag.
 * None of these needs a sentinel to answer.
 */
describe('redis-rtt proxy --config: sentinel-mode errors name the key the file holds', () => {
  const files = configFiles('rtt-sentinel-keys-');
  afterAll(() => files.remove());

  it('the sentinels no one answers at, a list in one item, a user without a password: exit 2 naming the key', async () => {
    // A port nothing listens on: the sentinel there refuses at once.
    const dead = `127.0.0.1:${await findFreePort('127.0.0.1')}`;
    const base = { sentinels: [dead], sentinelMaster: 'mymaster', listen: '127.0.0.1:0', compensationUs: { up: 0, down: 0 } };
    const cases: [object, string[], RegExp][] = [
      [base, [], /\.json: sentinels: invalid value "127\.0\.0\.1:\d+"; expected a sentinel that answers/],
      [{ ...base, sentinelUser: 'rtt' }, [], /\.json: sentinelUser: invalid value "rtt"; expected a password with it/],
      [{ ...base, sentinels: [`${dead},${dead}`] }, [], /\.json: sentinels: invalid value "[^"]+"; expected one host:port per item/],
      // Typed on the command line: the flag, as before.
      [base, ['--sentinel-user', 'rtt'], /redis-rtt: --sentinel-user: invalid value "rtt"; expected a password with it/],
    ];
    const runs = await runClis(cases.map(([config, flags]) => ['proxy', '--config', files.file(config), ...flags]));
    for (const [i, [config, , message]] of cases.entries()) {
      const r = runs[i]!;
      expect({ code: r.code, stdout: r.stdout }, JSON.stringify(config)).toEqual({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(message);
    }
  }, 60_000);
});
