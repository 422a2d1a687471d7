import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type tls from 'node:tls';
import type { Endpoint } from '../endpoint.js';
import { RedisSpawnError } from '../errors.js';
import { passwordOffArgv } from './password-config.js';
import type { PrivateRedisOptions } from './private-redis.js';
import { generateTlsFiles, type TlsFiles } from './tls-certs.js';

/** A private redis-server's command line, and where and how it is reached. */
export interface PrivateServerPlan {
  args: string[];
  host?: string;
  port?: number;
  socketPath?: string;
  address: string;
  endpoint: Endpoint;
  tls?: TlsFiles & { clientAuth: boolean };
  /** How rawCommands() reaches a TLS instance: trusting its CA (and with the client certificate it asks for). */
  clientTls?: tls.ConnectionOptions;
  /** The --requirepass given in `args`, kept off argv (password-config.ts). */
  password?: string;
}

/**
 * No persistence, loopback only, in `dir`: TCP on `port` (TLS there when asked, with files made in
 * `dir` unless given) or a unix socket in `dir`; a Sentinel's empty config file first when asked.
 */
export function privateServerPlan(dir: string, transport: 'tcp' | 'unix', port: number, opts: PrivateRedisOptions): PrivateServerPlan {
  const args = ['--save', '', '--appendonly', 'no', '--dir', dir, '--bind', '127.0.0.1', '--logfile', ''];
  let plan: Omit<PrivateServerPlan, 'args'>;
  if (transport === 'tcp') {
    plan = { host: '127.0.0.1', port, address: `127.0.0.1:${port}`, endpoint: { kind: 'tcp', host: '127.0.0.1', port } };
    if (opts.tls) {
      const clientAuth = typeof opts.tls === 'object' && opts.tls.clientAuth === true;
      const files = (typeof opts.tls === 'object' && opts.tls.files) || generateTlsFiles(dir, { client: clientAuth });
      plan.tls = { ...files, clientAuth };
      // prettier-ignore
      args.push('--port', '0', '--tls-port', String(port), '--tls-cert-file', files.certFile, '--tls-key-file', files.keyFile,
        '--tls-ca-cert-file', files.caFile, '--tls-auth-clients', clientAuth ? 'yes' : 'no');
      plan.clientTls = {
        ca: readFileSync(files.caFile),
        ...(clientAuth ? { cert: readFileSync(files.clientCertFile!), key: readFileSync(files.clientKeyFile!) } : {}),
      };
    } else {
      args.push('--port', String(port));
    }
  } else {
    const socketPath = join(dir, 'redis.sock');
    plan = { socketPath, address: `unix:${socketPath}`, endpoint: { kind: 'unix', path: socketPath } };
    args.push('--port', '0', '--unixsocket', socketPath, '--unixsocketperm', '700');
  }
  const { args: extra, password, configFile } = passwordOffArgv(opts.args ?? [], dir);
  if (opts.sentinel) {
    if (configFile !== undefined) throw new RedisSpawnError('startPrivateRedis: a Sentinel takes no --requirepass here (use its own config)');
    const sentinelConfig = join(dir, 'sentinel.conf');
    writeFileSync(sentinelConfig, '');
    args.unshift(sentinelConfig, '--sentinel');
  } else if (configFile !== undefined) args.unshift(configFile);
  args.push(...extra);
  return { ...plan, args, ...(password !== undefined ? { password } : {}) };
}
