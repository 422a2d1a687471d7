/**
 * Throwaway certificates made with the openssl CLI: a CA, a server certificate for localhost and
 * 127.0.0.1 signed by it, and (on request) a client certificate for mTLS. For tests, the private
 * Redis and `--listen-tls` without `--tls-cert`; never for anything that must stay secret (the CA
 * key sits next to the certificates in the same directory).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface TlsFiles {
  /** The CA certificate a client must trust (PEM). */
  caFile: string;
  /** The server certificate (SANs localhost, 127.0.0.1) and its key. */
  certFile: string;
  keyFile: string;
  /** A client certificate and key signed by the same CA, when asked for. */
  clientCertFile?: string;
  clientKeyFile?: string;
}

/** Creates the files in `dir` (which must exist and be private). Throws when openssl is missing or fails. */
export function generateTlsFiles(dir: string, options: { client?: boolean; days?: number; hosts?: readonly string[] } = {}): TlsFiles {
  const days = String(options.days ?? 2);
  const at = (name: string): string => join(dir, name);
  const run = (args: string[]): void => {
    try {
      execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
      if (e.code === 'ENOENT') throw new Error('openssl not found: install it (apt-get install -y openssl) to generate certificates');
      throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString().trim() ?? e.message}`);
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.crt'), '-days', days, '-subj', '/CN=redis-rtt throwaway CA']);
  const sign = (name: string, cn: string, ext: string): void => {
    run(['req', ...ec, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', `/CN=${cn}`]);
    writeFileSync(at(`${name}.ext`), ext);
    run(['x509', '-req', '-in', at(`${name}.csr`), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial',
      '-out', at(`${name}.crt`), '-days', days, '-extfile', at(`${name}.ext`)]);
  };
  // clientAuth too: with --tls-cluster yes a node presents this certificate to the other nodes'
  // bus ports, which always ask for one.
  // Other names clients reach the server by (`hosts`: IPs or DNS names) join localhost and 127.0.0.1.
  const sans = [...new Set(['DNS:localhost', 'IP:127.0.0.1', ...(options.hosts ?? []).map((h) => (isIP(h) ? `IP:${h}` : `DNS:${h}`))])];
  sign('server', 'localhost', `subjectAltName=${sans.join(',')}\nextendedKeyUsage=serverAuth,clientAuth\n`);
  const files: TlsFiles = { caFile: at('ca.crt'), certFile: at('server.crt'), keyFile: at('server.key') };
  if (options.client) {
    sign('client', 'redis-rtt client', 'extendedKeyUsage=clientAuth\n');
    files.clientCertFile = at('client.crt');
    files.clientKeyFile = at('client.key');
  }
  return files;
}
