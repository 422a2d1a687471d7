import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import type { ProxyOptions } from '../proxy/types.js';
import { TLS_VERSIONS, type TlsVersion } from '../tls/options.js';

export interface TlsFlagValues {
  upstreamTls?: boolean;
  upstreamCa?: string;
  upstreamServername?: string;
  upstreamCert?: string;
  upstreamKey?: string;
  upstreamInsecure?: boolean;
  listenTls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  listenTlsCa?: string;
  tlsMaxVersion?: string;
}

/** TLS flags of `redis-rtt proxy` (docs/tls.md). */
export function addTlsFlags(cmd: Command): Command {
  return cmd
    .option('--upstream-tls', 'speak TLS to Redis (a rediss:// or in-transit-encryption endpoint)')
    .option('--no-upstream-tls', 'plaintext to Redis (the default; over a --config file\'s "upstreamTls", its fields dropped with it)')
    .option('--upstream-ca <file>', 'CA certificate (PEM) to verify Redis with (default: the system roots bundled with Node)')
    .option('--upstream-servername <name>', 'name to verify Redis\'s certificate against and send as SNI (default: the --upstream host)')
    .option('--upstream-cert <file>', 'client certificate (PEM) to present to Redis (mTLS, tls-auth-clients yes); with --upstream-key')
    .option('--upstream-key <file>', 'private key (PEM) of --upstream-cert')
    .option('--upstream-insecure', 'do NOT verify Redis\'s certificate (logged as a warning; for throwaway test servers only)')
    .option('--listen-tls', 'serve TLS to clients, terminated behind the link so handshakes pay their round trips')
    .option('--no-listen-tls', 'plaintext to clients (the default; over a --config file\'s "listenTls", its fields dropped with it)')
    .option('--tls-cert <file>', 'server certificate (PEM) for --listen-tls (default: a throwaway pair; the JSON line prints its CA as tlsCa)')
    .option('--tls-key <file>', 'private key (PEM) of --tls-cert')
    .option('--listen-tls-ca <file>', 'require client certificates signed by this CA (PEM) on --listen-tls')
    .option('--tls-max-version <v>', `highest TLS version --listen-tls offers: 1.2 or 1.3 (default 1.3; 1.2 to see its extra handshake round trip)`);
}

export function tlsFromFlags(f: TlsFlagValues): Pick<ProxyOptions, 'upstreamTls' | 'listenTls'> {
  const upstreamOnly = { '--upstream-ca': f.upstreamCa, '--upstream-servername': f.upstreamServername, '--upstream-cert': f.upstreamCert, '--upstream-key': f.upstreamKey };
  if (!f.upstreamTls) {
    for (const [flag, v] of Object.entries({ ...upstreamOnly, '--upstream-insecure': f.upstreamInsecure })) {
      if (v !== undefined) throw new ConfigError(flag, v, 'to be used with --upstream-tls');
    }
  }
  if (!f.listenTls) {
    for (const [flag, v] of Object.entries({ '--tls-cert': f.tlsCert, '--tls-key': f.tlsKey, '--listen-tls-ca': f.listenTlsCa, '--tls-max-version': f.tlsMaxVersion })) {
      if (v !== undefined) throw new ConfigError(flag, v, 'to be used with --listen-tls');
    }
  }
  let maxVersion: TlsVersion | undefined;
  if (f.tlsMaxVersion !== undefined) {
    const v = /^(tlsv)?1\.[23]$/i.test(f.tlsMaxVersion) ? `TLSv${f.tlsMaxVersion.slice(-3)}` : f.tlsMaxVersion;
    if (!TLS_VERSIONS.includes(v as TlsVersion)) throw new ConfigError('--tls-max-version', f.tlsMaxVersion, '1.2 or 1.3');
    maxVersion = v as TlsVersion;
  }
  return {
    upstreamTls: f.upstreamTls
      ? { ca: f.upstreamCa, servername: f.upstreamServername, cert: f.upstreamCert, key: f.upstreamKey, insecure: f.upstreamInsecure }
      : undefined,
    listenTls: f.listenTls ? { cert: f.tlsCert, key: f.tlsKey, ca: f.listenTlsCa, maxVersion } : undefined,
  };
}
