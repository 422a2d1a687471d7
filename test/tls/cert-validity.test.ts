import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateTlsFiles } from '../../src/redis/tls-certs.js';
import { checkTlsFiles } from '../../src/tls/options.js';
import { runCli } from '../hardening/helpers/cli-proxy.js';

let dir: string;
/** A certificate for localhost signed by `ca.crt`, valid in January 2020 only, and its key. */
let expired: { cert: string; key: string };
/** A certificate for localhost valid from 2099 on. */
let future: { cert: string; key: string };
let ca: string;

/** `openssl ca` is the CLI that sets both dates of a certificate (x509 -req takes only -days). */
function signFor(name: string, start: string, end: string): { cert: string; key: string } {
  const at = (f: string): string => join(dir, f);
  const key = at(`${name}.key`);
  execFileSync('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', at(`${name}.csr`), '-subj', '/CN=localhost'], {
    stdio: 'ignore',
  });
  const cert = at(`${name}.crt`);
  execFileSync('openssl', ['ca', '-batch', '-config', at('ca.cnf'), '-in', at(`${name}.csr`), '-out', cert, '-startdate', start, '-enddate', end], { stdio: 'ignore' });
  return { cert, key };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'redis-rtt-cert-validity-'));
  const files = generateTlsFiles(dir);
  ca = files.caFile;
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '01\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    [
      '[ca]', 'default_ca = d', '[d]', `database = ${join(dir, 'index.txt')}`, `serial = ${join(dir, 'serial')}`, `new_certs_dir = ${dir}`,
      `certificate = ${files.caFile}`, `private_key = ${join(dir, 'ca.key')}`, 'default_md = sha256', 'policy = p', 'x509_extensions = e',
      'unique_subject = no', '[p]', 'commonName = supplied', '[e]', 'subjectAltName = DNS:localhost,IP:127.0.0.1', '',
    ].join('\n'),
  );
  expired = signFor('expired', '200101000000Z', '200201000000Z');
  future = signFor('future', '20990101000000Z', '20991231000000Z');
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * An expired (or not yet valid) certificate used to be accepted at start: the proxy listened and
 * every client's handshake then failed with "certificate has expired". It is a ConfigError naming
 * the flag or the config file's key, as a certificate that does not parse is.
 */
it('an expired or not yet valid certificate exits 2 naming the flag or key, before listening', async () => {
  const up = ['proxy', '--upstream', '127.0.0.1:1', '--compensate', 'off', '--cluster', 'off', '--listen', '127.0.0.1:0'];
  const config = join(dir, 'proxy.json');
  writeFileSync(config, JSON.stringify({ upstream: '127.0.0.1:1', listenTls: { cert: expired.cert, key: expired.key } }));
  const cases: { args: string[]; says: string }[] = [
    { args: [...up, '--listen-tls', '--tls-cert', expired.cert, '--tls-key', expired.key], says: `--tls-cert: invalid value "${expired.cert}"; expected a certificate valid now (it expired Feb  1 00:00:00 2020 GMT)` },
    { args: [...up, '--listen-tls', '--tls-cert', future.cert, '--tls-key', future.key], says: `--tls-cert: invalid value "${future.cert}"; expected a certificate valid now (it is valid from Jan  1 00:00:00 2099 GMT)` },
    { args: [...up, '--upstream-tls', '--upstream-ca', ca, '--upstream-cert', expired.cert, '--upstream-key', expired.key], says: '--upstream-cert: invalid value' },
    { args: [...up, '--upstream-tls', '--upstream-ca', expired.cert], says: '--upstream-ca: invalid value' },
    { args: [...up, '--listen-tls', '--tls-cert', expired.cert, '--tls-key', expired.key, '--print-config'], says: '--tls-cert: invalid value' },
    { args: ['proxy', '--config', config, '--compensate', 'off'], says: `proxy.json: listenTls.cert: invalid value "${expired.cert}"; expected a certificate valid now (it expired` },
  ];
  // A served certificate with its chain after it: the first one is the certificate served.
  const chain = join(dir, 'expired-chain.crt');
  writeFileSync(chain, readFileSync(expired.cert, 'latin1') + readFileSync(ca, 'latin1'));
  cases.push({ args: [...up, '--listen-tls', '--tls-cert', chain, '--tls-key', expired.key], says: `--tls-cert: invalid value "${chain}"; expected a certificate valid now` });
  const results = await Promise.all(cases.map((c) => runCli(c.args)));
  results.forEach((r, i) => {
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(cases[i]!.says);
    expect(r.stdout).toBe('');
  });
});

it('a valid certificate and a CA bundle whose other certificates are not read still start', async () => {
  // A bundle: the expired certificate after the valid CA (only a lone certificate's dates are checked).
  const bundle = join(dir, 'bundle.crt');
  execFileSync('sh', ['-c', `cat "${ca}" "${expired.cert}" > "${bundle}"`]);
  const files = generateTlsFiles(mkdtempSync(join(dir, 'valid-')));
  const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--upstream-tls', '--upstream-ca', bundle, '--listen-tls', '--tls-cert', files.certFile, '--tls-key', files.keyFile, '--print-config']);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ upstreamTls: { ca: bundle }, listenTls: { cert: files.certFile } });
});

/**
 * X509Certificate reads DER as well as PEM, so a DER file passed the check, and then: a DER
 * `--tls-cert` crashed the start with a stack trace (exit 1), a DER `--upstream-ca` or
 * `--listen-tls-ca` was dropped by Node without a word, so every certificate failed to verify.
 */
it('a DER certificate is refused naming the flag and how to convert it; the CLI exits 2 before listening', async () => {
  // The expired certificate: its form is checked before its dates.
  const der = join(dir, 'expired.der');
  execFileSync('openssl', ['x509', '-in', expired.cert, '-outform', 'DER', '-out', der]);
  const says = (flag: string): string => `${flag}: invalid value "${der}"; expected a PEM certificate (this one is DER: openssl x509 -inform DER -in ${der} -out ${der}.pem converts it)`;
  expect(() => checkTlsFiles({ ca: der }, undefined)).toThrow(says('--upstream-ca'));
  expect(() => checkTlsFiles(undefined, { ca: der })).toThrow(says('--listen-tls-ca'));
  expect(() => checkTlsFiles({ cert: der, key: expired.key }, undefined)).toThrow(says('--upstream-cert'));
  const r = await runCli(['proxy', '--upstream', '127.0.0.1:1', '--compensate', 'off', '--cluster', 'off', '--listen', '127.0.0.1:0', '--listen-tls', '--tls-cert', der, '--tls-key', expired.key]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toBe(`redis-rtt: ${says('--tls-cert')}\n`);
  expect(r.stdout).toBe('');
});

/**
 * OpenSSL stops reading a PEM file at a corrupt certificate without a word: a CA bundle with a bad
 * block before the root in use started, and every handshake then failed to verify.
 */
it('a certificate file with a block that does not parse, or a BEGIN line with no END, is refused naming the flag', () => {
  const good = readFileSync(ca, 'latin1');
  const corrupt = join(dir, 'corrupt-bundle.crt');
  writeFileSync(corrupt, `${good}-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n${good}`);
  expect(() => checkTlsFiles({ ca: corrupt }, undefined)).toThrow(
    new RegExp(`^--upstream-ca: invalid value "${corrupt}"; expected a PEM certificate \\(certificate 2 of 3 does not parse: `),
  );
  const cut = join(dir, 'cut-bundle.crt');
  writeFileSync(cut, `${good}-----BEGIN CERTIFICATE-----\nMIIB\n`);
  expect(() => checkTlsFiles(undefined, { ca: cut })).toThrow(
    `--listen-tls-ca: invalid value "${cut}"; expected a PEM certificate (1 of its 2 BEGIN CERTIFICATE lines has no END line)`,
  );
  // The same certificates, whole: accepted.
  const whole = join(dir, 'whole-bundle.crt');
  writeFileSync(whole, good + good);
  expect(() => checkTlsFiles({ ca: whole }, undefined)).not.toThrow();
});

/**
 * A Redis whose certificate has expired (signed by the CA given): the start-up's discovery failed
 * with CERT_HAS_EXPIRED, and the exit-2 message named `--upstream-ca: invalid value "ca.crt";
 * expected a CA that signed the upstream's certificate`, a file that is right. It names the server.
 */
it('an upstream whose certificate has expired: exit 2 naming --upstream, not the CA that signed it', async () => {
  const server = tls.createServer({ cert: readFileSync(expired.cert), key: readFileSync(expired.key) }, (s) => s.destroy());
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const upstream = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = await runCli(['proxy', '--upstream', upstream, '--upstream-tls', '--upstream-ca', ca, '--compensate', 'off', '--listen', '127.0.0.1:0']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `redis-rtt: --upstream: invalid value "${upstream}"; expected a server whose certificate chain is valid now: a certificate in it has expired or is not valid ` +
        `yet, renew it (cluster discovery at ${upstream} failed: CERT_HAS_EXPIRED (certificate has expired))\n`,
    );
    expect(r.stdout).toBe('');
  } finally {
    server.close();
  }
});
