import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../hardening/helpers/cli-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-unix-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SAYS = 'expected a host:port upstream (Redis serves TLS over TCP)';

/**
 * A unix-socket upstream with upstream TLS is refused at start (Redis serves TLS on a TCP port
 * only); --print-config, which "exits 2 where the start would" (docs/cli.md), printed it and exited 0.
 */
it('--upstream unix:/path with --upstream-tls (or upstreamTls in a file) exits 2 with --print-config, as at start', async () => {
  const sock = join(dir, 'redis.sock');
  const config = join(dir, 'proxy.json');
  writeFileSync(config, JSON.stringify({ upstream: `unix:${sock}`, upstreamTls: true }));
  const runs = await Promise.all([
    runCli(['proxy', '--upstream', `unix:${sock}`, '--upstream-tls', '--print-config']),
    runCli(['proxy', '--config', config, '--print-config']),
    runCli(['proxy', '--config', config, '--compensate', 'off', '--listen', '127.0.0.1:0']),
  ]);
  // The flag typed is named by the flag, the file's key by the file and key.
  const named = ['--upstream-tls', `${config}: upstreamTls`, `${config}: upstreamTls`];
  runs.forEach((r, i) => {
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`redis-rtt: ${named[i]}: invalid value "${sock}"; ${SAYS}`);
    expect(r.stdout).toBe('');
  });
  // Without TLS the same upstream prints.
  const plain = await runCli(['proxy', '--upstream', `unix:${sock}`, '--print-config']);
  expect(plain.code, plain.stderr).toBe(0);
  expect(JSON.parse(plain.stdout)).toMatchObject({ upstream: `unix:${sock}` });
});
