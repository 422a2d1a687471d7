import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../src/redis/index.js';
import { runCli, startCliProxy } from '../hardening/helpers/cli-proxy.js';

const run = promisify(execFile);

describe('redis-rtt proxy with TLS flags', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis({ tls: { clientAuth: true } });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('bad TLS input exits 2 naming the flag, before listening', async () => {
    const t = redis.tls!;
    const up = ['proxy', '--upstream', redis.address];
    const cases: { args: string[]; flag: string; accepts: RegExp }[] = [
      { args: [...up, '--upstream-tls', '--upstream-ca', '/nonexistent/ca.pem'], flag: '--upstream-ca', accepts: /readable PEM file \(ENOENT\)/ },
      { args: [...up, '--upstream-tls', '--upstream-cert', t.clientCertFile!, '--upstream-key', t.keyFile], flag: '--upstream-key', accepts: /does not match/ },
      { args: [...up, '--upstream-ca', t.caFile], flag: '--upstream-ca', accepts: /with --upstream-tls/ },
      { args: [...up, '--upstream-tls', '--upstream-ca', t.caFile, '--upstream-insecure'], flag: '--upstream-ca', accepts: /beside --upstream-insecure .*which verifies nothing/ },
      { args: [...up, '--upstream-tls', '--upstream-ca', t.caFile, '--upstream-servername', 'bad name!'], flag: '--upstream-servername', accepts: /invalid value "bad name!"; expected a DNS name/ },
      { args: [...up, '--listen-tls', '--tls-cert', t.certFile], flag: '--tls-key', accepts: /--tls-key: missing; expected a PEM file to go with --tls-cert .*together/ },
      { args: [...up, '--upstream-tls', '--upstream-cert', t.clientCertFile!], flag: '--upstream-key', accepts: /--upstream-key: missing; expected a PEM file to go with --upstream-cert / },
      { args: [...up, '--listen-tls', '--tls-max-version', '1.1'], flag: '--tls-max-version', accepts: /1\.2 or 1\.3/ },
      { args: [...up, '--tls-cert', t.certFile, '--tls-key', t.keyFile], flag: '--tls-cert', accepts: /with --listen-tls/ },
      {
        args: [...up, '--listen-tls', '--rtt', '1ms', '--compensate', 'calibrate'],
        flag: '--compensate',
        accepts: /with --listen-tls \(calibrate measures through a plaintext listener, not the TLS one clients use\)/,
      },
      { args: [...up, '--upstream-tls', '--upstream-ca', '/nonexistent/ca.pem', '--rtt', '1ms', '--compensate', 'calibrate'], flag: '--upstream-ca', accepts: /ENOENT/ },
      // --cluster auto (the default) asks the upstream at start, over TLS: a wrong name stops it there.
      {
        args: [...up, '--upstream-tls', '--upstream-ca', t.caFile, '--upstream-servername', 'wrong.example'],
        flag: '--upstream-servername',
        accepts: /a name in the upstream's certificate \(cluster discovery at .* failed: ERR_TLS_CERT_ALTNAME_INVALID/,
      },
      // No --upstream-ca: the private CA's certificate does not verify against Node's roots. Named as missing
      // (it read `invalid value "Node's bundled roots"`, a value nobody typed).
      {
        args: [...up, '--upstream-tls'],
        flag: '--upstream-ca',
        accepts:
          /--upstream-ca: missing; expected a CA that signed the upstream's certificate: it did not verify against Node's bundled roots \(cluster discovery at \S+ failed: /,
      },
      // This Redis wants a client certificate (mTLS): its alert is named at start too, the flag as missing
      // (it read `invalid value "none"`, a value nobody typed).
      {
        args: [...up, '--upstream-tls', '--upstream-ca', t.caFile],
        flag: '--upstream-cert',
        accepts: /--upstream-cert: missing; expected a client certificate the upstream accepts \(cluster discovery at \S+ failed: ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED \(tlsv13 alert certificate required\)\)\n$/,
      },
    ];
    const results = await Promise.all(cases.map((c) => runCli(c.args)));
    results.forEach((r, i) => {
      const c = cases[i]!;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(c.flag);
      expect(r.stderr).toMatch(c.accepts);
      expect(r.stdout).toBe('');
    });
  });

  it('--listen-tls with a generated pair and --upstream-tls with a client certificate: a rediss:// client gets PONG', async () => {
    const t = redis.tls!;
    const p = await startCliProxy([
      '--upstream', redis.address, '--upstream-tls', '--upstream-ca', t.caFile, '--upstream-cert', t.clientCertFile!, '--upstream-key', t.clientKeyFile!,
      '--listen-tls', '--rtt', '2ms',
    ]);
    try {
      const ca = (p.line as unknown as { tlsCa: string }).tlsCa;
      expect(ca).toMatch(/ca\.crt$/);
      const { stdout } = await run('redis-cli', ['-u', `rediss://127.0.0.1:${p.port}`, '--cacert', ca, 'PING']);
      expect(stdout.trim()).toBe('PONG');
    } finally {
      await p.stop('SIGTERM');
    }
  });

  it('--compensate calibrate over --upstream-tls (mTLS): direct PINGs and the proxy dial Redis with the same TLS options', { timeout: 60_000 }, async () => {
    const t = redis.tls!;
    const p = await startCliProxy(
      ['--upstream', redis.address, '--upstream-tls', '--upstream-ca', t.caFile, '--upstream-cert', t.clientCertFile!, '--upstream-key', t.clientKeyFile!,
        '--rtt', '1ms', '--compensate', 'calibrate'],
      { startTimeoutMs: 50_000 },
    );
    try {
      expect(p.stderr()).toMatch(/calibrating 1ms RTT against 127\.0\.0\.1:\d+ over TLS/);
      expect(p.stderr()).toMatch(/calibrated: 500us one-way -> \d+ us off; added RTT p50 [\d.]+ us with it/);
      const comp = (p.line as unknown as { compensationUs: { up: number; down: number } }).compensationUs;
      expect(comp.up).toBeLessThanOrEqual(500);
      const { stdout } = await run('redis-cli', ['-p', String(p.port), 'PING']);
      expect(stdout.trim()).toBe('PONG');
    } finally {
      await p.stop('SIGTERM');
    }
  });

  it('--upstream-insecure connects without verification and warns loudly', async () => {
    const p = await startCliProxy(['--upstream', redis.address, '--upstream-tls', '--upstream-insecure',
      '--upstream-cert', redis.tls!.clientCertFile!, '--upstream-key', redis.tls!.clientKeyFile!]);
    try {
      expect(p.stderr()).toMatch(/WARNING: --upstream-insecure: the upstream certificate is NOT verified/);
      const { stdout } = await run('redis-cli', ['-p', String(p.port), 'PING']);
      expect(stdout.trim()).toBe('PONG');
    } finally {
      await p.stop('SIGTERM');
    }
  });
});
