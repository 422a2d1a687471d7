/**
 * A config file's upstreamTls and listenTls: their files are read with the file (a bad one exits 2
 * naming the file and its key, not a flag the user never typed), a misspelled key is refused as the
 * link's is, and the TLS flags merge with them
 * key by key (`--upstream-ca` over `"upstreamTls": true` keeps TLS on and adds the CA); --no-upstream-tls and
 * --no-listen-tls turn a file's side off.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeProxyConfig, readProxyConfig } from '../../src/cli/proxy-config.js';
import { startProxy } from '../../src/cluster/start-proxy.js';
import { ConfigError } from '../../src/errors.js';
import { generateTlsFiles } from '../../src/redis/tls-certs.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';
import { tlsFromFlags } from '../../src/cli/tls-flags.js';

const dir = mkdtempSync(join(tmpdir(), 'redis-rtt-config-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pem = generateTlsFiles(dir);
let n = 0;
const file = (content: unknown): string => {
  const path = join(dir, `c${++n}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
};
const refusal = (path: string): Promise<ConfigError | undefined> => readProxyConfig(path).then(() => undefined, (e: ConfigError) => e);

describe('a config file names its own key for a bad TLS file', () => {
  it('a missing CA, a certificate without its key, a key that is no certificate', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ upstreamTls: { ca: join(dir, 'none.pem') } }, 'upstreamTls.ca', /a readable PEM file \(ENOENT\)/],
      [{ upstreamTls: { cert: pem.certFile } }, 'upstreamTls.key', /a PEM file to go with upstreamTls\.cert /],
      [{ upstreamTls: { servername: '10.0.0.1' } }, 'upstreamTls.servername', /a DNS name/],
      [{ listenTls: { key: pem.keyFile } }, 'listenTls.cert', /listenTls\.cert and listenTls\.key together, or neither/],
      [{ listenTls: { cert: pem.keyFile, key: pem.keyFile } }, 'listenTls.cert', /a PEM certificate/],
      [{ listenTls: { ca: pem.keyFile } }, 'listenTls.ca', /a PEM certificate/],
    ];
    for (const [tls, key, accepts] of cases) {
      const path = file({ upstream: '127.0.0.1:6379', ...(tls as object) });
      const e = await refusal(path);
      expect(e?.flag, JSON.stringify(tls)).toBe(`${path}: ${key}`);
      expect(e?.accepts).toMatch(accepts);
    }
    // Good files pass.
    const good = file({ upstreamTls: { ca: pem.caFile }, listenTls: { cert: pem.certFile, key: pem.keyFile, ca: pem.caFile } });
    expect(await refusal(good)).toBeUndefined();
  });

  it('a misspelled TLS key is refused, not dropped (the CA unused, TLS 1.3 offered where 1.2 was asked)', async () => {
    for (const [tls, key] of [
      [{ upstreamTls: { CA: pem.caFile } }, 'upstreamTls.CA'],
      [{ listenTls: { maxversion: 'TLSv1.2' } }, 'listenTls.maxversion'],
    ] as const) {
      const path = file({ upstream: '127.0.0.1:6379', ...tls });
      const e = await refusal(path);
      expect(e?.flag).toBe(`${path}: ${key}`);
      expect(e?.accepts).toMatch(/^a key of (upstreamTls|listenTls): /);
    }
    // The library's options are the same schema.
    await expect(startProxy({ upstream: '127.0.0.1:6379', listenTls: { maxversion: 'TLSv1.2' } as never, log: () => undefined })).rejects.toThrow(
      /^listenTls\.maxversion: invalid value "TLSv1\.2"; expected a key of listenTls: cert, key, ca, maxVersion$/,
    );
  });

  it('exits 2 with that key, also with --print-config, and says no flag', async () => {
    const path = file({ upstream: '127.0.0.1:6379', upstreamTls: { ca: join(dir, 'none.pem') } });
    const r = await runCli(['proxy', '--config', path, '--print-config']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${path}: upstreamTls.ca: invalid value`);
    expect(r.stderr).not.toContain('--upstream-ca');
    expect(r.stdout).toBe('');
  });
});

describe('TLS flags merge with the file key by key', () => {
  const sources = (cli: string[]) => ({ getOptionValueSource: (k: string) => (cli.includes(k) ? 'cli' : 'default') });

  it("a field's flag over the file's side: the side stays on, the file's other fields kept", () => {
    const config = { upstreamTls: true, listenTls: { cert: 'c.pem', key: 'k.pem', maxVersion: 'TLSv1.2' } };
    const merged = mergeProxyConfig({ upstreamCa: 'ca.pem', tlsMaxVersion: '1.3' }, sources(['upstreamCa', 'tlsMaxVersion']), config);
    expect(merged.flags).toEqual({ upstreamCa: 'ca.pem', upstreamTls: true, listenTls: true, tlsCert: 'c.pem', tlsKey: 'k.pem', tlsMaxVersion: '1.3' });
    expect(merged.file).toEqual({});
  });

  it('a side no flag touches stays in the file as it is; a side the file turns off is the flags alone', () => {
    const config = { upstreamTls: { ca: 'ca.pem' }, listenTls: false };
    const merged = mergeProxyConfig({ listenTls: true }, sources(['listenTls']), config);
    // fileKeys: a start that refuses the file's side names its key (file-key-errors.ts).
    expect(merged.flags).toEqual({ listenTls: true, fileKeys: { upstreamTls: 'upstreamTls' } });
    expect(merged.file).toEqual({ upstreamTls: { ca: 'ca.pem' } });
  });

  it('--no-upstream-tls and --no-listen-tls turn off the file\'s side with all its fields; a field flag beside them is refused', () => {
    const config = { upstreamTls: { ca: 'ca.pem', insecure: true }, listenTls: { cert: 'c.pem', key: 'k.pem' } };
    const merged = mergeProxyConfig({ upstreamTls: false, listenTls: false }, sources(['upstreamTls', 'listenTls']), config);
    expect(merged.flags).toEqual({ upstreamTls: false, listenTls: false });
    expect(merged.file).toEqual({});
    const withField = mergeProxyConfig({ upstreamTls: false, upstreamCa: 'ca.pem' }, sources(['upstreamTls', 'upstreamCa']), { upstreamTls: true });
    expect(() => tlsFromFlags(withField.flags)).toThrow(/^--upstream-ca: invalid value "ca\.pem"; expected to be used with --upstream-tls$/);
  });

  it('redis-rtt proxy --config --no-upstream-tls --no-listen-tls --print-config: neither side left', async () => {
    const path = file({ upstream: '127.0.0.1:6379', upstreamTls: { ca: pem.caFile }, listenTls: { cert: pem.certFile, key: pem.keyFile } });
    const r = await runCli(['proxy', '--config', path, '--no-upstream-tls', '--no-listen-tls', '--print-config']);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(printed).not.toHaveProperty('upstreamTls');
    expect(printed).not.toHaveProperty('listenTls');
    expect(printed.upstream).toBe('127.0.0.1:6379');
  });

  it("redis-rtt proxy --config with --upstream-ca and --tls-max-version: the file's TLS with the flags' fields", async () => {
    const path = file({ upstream: '127.0.0.1:6379', upstreamTls: true, listenTls: { cert: pem.certFile, key: pem.keyFile, maxVersion: 'TLSv1.2' } });
    const r = await runCli(['proxy', '--config', path, '--upstream-ca', pem.caFile, '--tls-max-version', '1.3', '--print-config']);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(printed.upstreamTls).toEqual({ ca: pem.caFile });
    expect(printed.listenTls).toEqual({ cert: pem.certFile, key: pem.keyFile, maxVersion: 'TLSv1.3' });
  });
});
