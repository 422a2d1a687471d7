/**
 * TLS settings of both sides, read and checked once at start so a bad file is a ConfigError naming
 * its flag (exit 2) instead of a failure on every connection: files must exist and parse, a key must
 * match its certificate.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type tls from 'node:tls';
import { z } from 'zod';
import { ConfigError } from '../errors.js';

export const TLS_VERSIONS = ['TLSv1.2', 'TLSv1.3'] as const;
export type TlsVersion = (typeof TLS_VERSIONS)[number];

const file = (what: string) => z.string({ error: 'a file path' }).min(1).describe(what).optional();

/** TLS towards Redis (`--upstream-tls`): the shape; the files are read and checked by loadUpstreamTls. */
export const UPSTREAM_TLS = z.strictObject(
  {
    ca: file("CA certificate(s) (PEM file) to verify Redis with. Default: Node's bundled roots."),
    servername: z.string({ error: 'a DNS name' }).describe('Name to verify and send as SNI. Default: the upstream host (SNI only when it is a name).').optional(),
    cert: file('Client certificate (PEM file) for Redis with `tls-auth-clients yes`; with key.'),
    key: file('Private key (PEM file) of cert.'),
    insecure: z.boolean({ error: 'true or false' }).describe('Skip certificate verification (logged as a warning at start).').optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? 'a key of upstreamTls: ca, servername, cert, key, insecure' : 'true, or an object of ca, servername, cert, key, insecure') },
);
export type UpstreamTlsOptions = z.input<typeof UPSTREAM_TLS>;

/** TLS towards clients (`--listen-tls`): the shape; the files are read and checked by loadListenTls. */
export const LISTEN_TLS = z.strictObject(
  {
    cert: file('Server certificate (PEM file), with key. Default: a throwaway pair made at start (its CA path in `tlsCaFile`).'),
    key: file('Private key (PEM file) of cert.'),
    ca: file('Require client certificates signed by this CA (PEM file). Default: none required.'),
    maxVersion: z
      .enum(TLS_VERSIONS, { error: TLS_VERSIONS.join(' or ') })
      .describe("Highest TLS version offered, e.g. 'TLSv1.2' to measure a 1.2 handshake. Default: 'TLSv1.3'.")
      .optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? 'a key of listenTls: cert, key, ca, maxVersion' : 'true, or an object of cert, key, ca, maxVersion') },
);
export type ListenTlsOptions = z.input<typeof LISTEN_TLS>;

/** What a ConfigError calls each field: its flag, or a config file's key path. */
export type TlsFieldNames<O> = Record<Exclude<keyof O, 'insecure' | 'maxVersion'>, string>;

export const UPSTREAM_TLS_FLAGS: TlsFieldNames<UpstreamTlsOptions> = {
  ca: '--upstream-ca',
  servername: '--upstream-servername',
  cert: '--upstream-cert',
  key: '--upstream-key',
};
export const LISTEN_TLS_FLAGS: TlsFieldNames<ListenTlsOptions> = { cert: '--tls-cert', key: '--tls-key', ca: '--listen-tls-ca' };

/**
 * A name a certificate can be checked against and SNI can carry: dot-separated labels of letters,
 * digits, '-' and '_' (some private names have one), at most 253 characters. `bad name!` went out as
 * SNI and failed only at the handshake, as a certificate that did not match.
 */
const DNS_NAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/** Resolves `--upstream-tls` options into what tls.connect() takes per connection. */
export function loadUpstreamTls(
  o: UpstreamTlsOptions,
  upstreamHost: string | undefined,
  log: (line: string) => void,
  names: TlsFieldNames<UpstreamTlsOptions> = UPSTREAM_TLS_FLAGS,
): tls.ConnectionOptions {
  const out: tls.ConnectionOptions = {};
  // A CA given to verify with, beside a switch that verifies nothing: one of them is a mistake.
  if (o.insecure && o.ca !== undefined) throw new ConfigError(names.ca, o.ca, 'no CA beside --upstream-insecure ("insecure": true), which verifies nothing: leave one out');
  if (o.ca !== undefined) out.ca = readCertificate(o.ca, names.ca);
  checkPairGiven(o, names, '');
  if (o.cert !== undefined && o.key !== undefined) {
    Object.assign(out, readPair(o.cert, o.key, names.cert, names.key));
  }
  const servername = o.servername ?? (upstreamHost !== undefined && isIP(upstreamHost) === 0 ? upstreamHost : undefined);
  if (servername !== undefined) {
    if (!DNS_NAME.test(servername) || isIP(servername) !== 0) throw new ConfigError(names.servername, servername, 'a DNS name');
    out.servername = servername;
  }
  if (o.insecure) {
    out.rejectUnauthorized = false;
    log('WARNING: --upstream-insecure: the upstream certificate is NOT verified; anyone on the path can read and change the traffic');
  }
  return out;
}

/**
 * A certificate and its key come together: the one left out is what is missing, the other is
 * named with its file. `alone` says what leaving both out means, if anything.
 */
export function checkPairGiven(o: { cert?: string; key?: string }, names: { cert: string; key: string }, alone: string): void {
  if ((o.cert === undefined) === (o.key === undefined)) return;
  const [missing, given] = o.cert === undefined ? [names.cert, names.key] : [names.key, names.cert];
  const file = o.cert ?? o.key;
  throw new ConfigError(missing, undefined, `a PEM file to go with ${given} ${file} (${names.cert} and ${names.key} together${alone})`);
}

/** Resolves `--listen-tls` files into tls.TLSSocket server options (key and cert as given or generated). */
export function loadListenTls(
  o: ListenTlsOptions & { cert: string; key: string },
  names: TlsFieldNames<ListenTlsOptions> = LISTEN_TLS_FLAGS,
): tls.TLSSocketOptions {
  const out: tls.TLSSocketOptions = { ...readPair(o.cert, o.key, names.cert, names.key), maxVersion: o.maxVersion ?? 'TLSv1.3' };
  if (o.maxVersion !== undefined && !TLS_VERSIONS.includes(o.maxVersion)) {
    throw new ConfigError('--tls-max-version', o.maxVersion, TLS_VERSIONS.join(' or '));
  }
  if (o.ca !== undefined) {
    out.ca = readCertificate(o.ca, names.ca);
    out.requestCert = true;
    out.rejectUnauthorized = true;
  }
  return out;
}

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

function readFile(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ConfigError(flag, file, `a readable PEM file (${e.code ?? e.message})`);
  }
}

/**
 * Reads the files both sides' TLS options name, as a start does, without generating a listener
 * pair: what `--print-config` and a config file check before anything starts. A ConfigError
 * names each file by `upstreamNames` / `listenNames` (the flags unless given).
 */
export function checkTlsFiles(
  upstream: boolean | UpstreamTlsOptions | undefined,
  listen: boolean | ListenTlsOptions | undefined,
  upstreamNames: TlsFieldNames<UpstreamTlsOptions> = UPSTREAM_TLS_FLAGS,
  listenNames: TlsFieldNames<ListenTlsOptions> = LISTEN_TLS_FLAGS,
): void {
  if (typeof upstream === 'object' && upstream !== null) loadUpstreamTls(upstream, undefined, () => undefined, upstreamNames);
  if (typeof listen !== 'object' || listen === null) return;
  checkPairGiven(listen, listenNames, ', or neither for a generated pair');
  if (listen.cert !== undefined && listen.key !== undefined) loadListenTls({ ...listen, cert: listen.cert, key: listen.key }, listenNames);
  else if (listen.ca !== undefined) readCertificate(listen.ca, listenNames.ca);
}

/**
 * Reads a PEM certificate file. A certificate outside its validity period is refused: every
 * handshake that verifies it would fail ("certificate has expired"), so it is named at start. The
 * first certificate of a served or presented file (`leaf`: the certificate, then its chain) is
 * checked, and a CA file's when it holds one; a CA bundle's are not (a system bundle may hold an
 * old expired root beside the one in use).
 */
export function readCertificate(file: string, flag: string, leaf = false): Buffer {
  const pem = readFile(file, flag);
  const text = pem.toString('latin1');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch (err) {
    throw new ConfigError(flag, file, `a PEM certificate (${(err as Error).message})`);
  }
  // X509Certificate reads DER too, but TLS takes PEM only: a DER --tls-cert crashed the start, and
  // a DER CA was dropped without a word (every verification against it failed).
  if (!text.includes(PEM_CERTIFICATE)) {
    throw new ConfigError(flag, file, `a PEM certificate (this one is DER: openssl x509 -inform DER -in ${file} -out ${file}.pem converts it)`);
  }
  checkEveryBlock(text, file, flag);
  if (leaf || text.split(PEM_CERTIFICATE).length === 2) checkValidNow(cert, file, flag, Date.now());
  return pem;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Every certificate block of the file parses: OpenSSL stops at a corrupt one without a word, so the
 * certificates after it (the root a bundle's later block holds, a chain's intermediate) were dropped
 * and the handshakes failed later with nothing naming the file.
 */
function checkEveryBlock(text: string, file: string, flag: string): void {
  const blocks = text.match(PEM_BLOCK) ?? [];
  const begun = text.split(PEM_CERTIFICATE).length - 1;
  if (blocks.length !== begun) {
    throw new ConfigError(flag, file, `a PEM certificate (${begun - blocks.length} of its ${begun} BEGIN CERTIFICATE lines has no END line)`);
  }
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw new ConfigError(flag, file, `a PEM certificate (certificate ${i + 1} of ${blocks.length} does not parse: ${(err as Error).message})`);
    }
  });
}

function checkValidNow(cert: X509Certificate, file: string, flag: string, nowMs: number): void {
  if (Date.parse(cert.validTo) < nowMs) throw new ConfigError(flag, file, `a certificate valid now (it expired ${cert.validTo})`);
  if (Date.parse(cert.validFrom) > nowMs) throw new ConfigError(flag, file, `a certificate valid now (it is valid from ${cert.validFrom})`);
}

function readPair(certFile: string, keyFile: string, certFlag: string, keyFlag: string): { cert: Buffer; key: Buffer } {
  const cert = readCertificate(certFile, certFlag, true);
  const keyPem = readFile(keyFile, keyFlag);
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch (err) {
    throw new ConfigError(keyFlag, keyFile, `an unencrypted PEM private key (${(err as Error).message})`);
  }
  if (!new X509Certificate(cert).checkPrivateKey(key)) {
    throw new ConfigError(keyFlag, keyFile, `the private key of ${certFlag} ${certFile} (this key does not match that certificate)`);
  }
  return { cert, key: keyPem };
}
