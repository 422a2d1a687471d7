import net from 'node:net';
import tls from 'node:tls';
import type { UpstreamTlsMeter } from '../tls/counters.js';
import type { Endpoint } from './endpoint.js';

/**
 * Opens the connection to Redis: TCP, unix socket, or TLS over TCP when `secure` is set. With TLS
 * the TCP socket is dialed first and handed to tls.connect, so `meter` can read the wire bytes
 * from it (the TLSSocket counts plaintext).
 */
export function dialUpstream(e: Endpoint, secure: tls.ConnectionOptions | undefined, meter?: UpstreamTlsMeter): net.Socket {
  if (e.kind === 'unix') return net.connect({ path: e.path, allowHalfOpen: true });
  if (secure === undefined) return net.connect({ host: e.host, port: e.port, allowHalfOpen: true, noDelay: true });
  const raw = net.connect({ host: e.host, port: e.port, allowHalfOpen: true, noDelay: true });
  // tls.connect passes allowHalfOpen on to the TLSSocket; its type does not list it. `host` is
  // what the certificate is verified against when no servername is set.
  const options: tls.ConnectionOptions & { allowHalfOpen: boolean } = { ...secure, socket: raw, host: e.host, port: e.port, allowHalfOpen: true };
  const s = tls.connect(options);
  meter?.track(raw, s);
  return s;
}

/**
 * An errno code alone (ECONNREFUSED: the message only repeats it), or a TLS code with its reason
 * (UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate), so a failed
 * verification is named in the log.
 */
export function describeFailure(err: NodeJS.ErrnoException): string {
  if (err.code === undefined) return err.message;
  return err.message.includes(err.code) ? err.code : `${err.code} (${err.message})`;
}

export function describeEndpoint(e: Endpoint): string {
  return e.kind === 'unix' ? `unix:${e.path}` : `${e.host}:${e.port}`;
}
