import { expect, it } from 'vitest';
import { runCli } from '../hardening/helpers/cli-proxy.js';

/**
 * --compensate calibrate has no config key: --print-config's output, fed back as a config, starts
 * with auto. It left it out without a word, so the file looked like the same proxy.
 */
it('--print-config with --compensate calibrate says on stderr that its output leaves it out', async () => {
  const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--rtt', '5ms', '--compensate', 'calibrate', '--print-config']);
  expect(r.code, r.stderr).toBe(0);
  const printed = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(printed.compensationUs).toBeUndefined();
  expect(printed.link).toMatchObject({ rttUs: 5000 });
  expect(r.stderr).toBe('redis-rtt: note: --compensate calibrate has no config key and is not in this output: give it as a flag with --config\n');
  // Any other mode is in the output (compensationUs), and nothing is said.
  const off = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--compensate', 'off', '--print-config']);
  expect(off.code, off.stderr).toBe(0);
  expect(JSON.parse(off.stdout)).toMatchObject({ compensationUs: { up: 0, down: 0 } });
  expect(off.stderr).toBe('');
});
