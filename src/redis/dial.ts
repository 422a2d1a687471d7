import net from 'node:net';
import tls from 'node:tls';
import { formatEndpoint, type Endpoint } from '../endpoint.js';

/** How to reach a Redis at an Endpoint (where it is): TLS or not, and what the caller needs of the socket. */
export interface DialOptions {
  /**
   * TLS over the dialed socket: TCP, or a unix socket (Redis serves TLS over TCP only, but the proxy's own
   * `--listen-tls` listener may be a socket file). `host` is what the certificate is verified against when no
   * servername is set.
   */
  tls?: tls.ConnectionOptions;
  /** Keep our side writable after Redis's FIN: the proxy half-closes each direction on its own. @default false */
  allowHalfOpen?: boolean;
  /** Given the TCP socket under a TLS one, so wire bytes can be counted (the TLSSocket counts plaintext). */
  onTls?: (raw: net.Socket, secure: tls.TLSSocket) => void;
  /**
   * Every read, as a Buffer of its own. A plaintext socket reads into the process's one read buffer
   * (`READ_BUFFER`) instead of emitting 'data'; a TLS socket emits 'data' to it.
   */
  onData?: (chunk: Buffer) => void;
}

/**
 * Node makes an ArrayBuffer for every socket read (a malloc'd backing store, which the scavenger
 * must then sweep: the longest phase of a steady scavenge, docs/precision.md). A socket Node dials
 * can read into a buffer of ours instead (`onread`): all of them read into this one, and each read
 * is copied out into Node's pooled allocator, which hands out slices of one ArrayBuffer per 8 KB of
 * small reads. The copy is safe to share: a read callback runs to its end before the next read.
 */
const READ_BUFFER = Buffer.allocUnsafeSlow(64 * 1024);

function sharedReads(onData: (chunk: Buffer) => void): net.OnReadOpts {
  return {
    buffer: READ_BUFFER,
    callback: (bytes: number): boolean => {
      const chunk = Buffer.allocUnsafe(bytes);
      READ_BUFFER.copy(chunk, 0, 0, bytes);
      onData(chunk);
      return true; // false would pause the socket: backpressure.ts pauses it itself
    },
  };
}

/**
 * The one way redis-rtt opens a connection to Redis: the proxy's upstream, raw commands, the start-up
 * PING and the calibration pinger. TCP (no Nagle) or a unix socket, with TLS over the socket dialed first.
 */
export function dialRedis(at: Endpoint, o: DialOptions = {}): net.Socket {
  const allowHalfOpen = o.allowHalfOpen ?? false;
  const onData = o.onData;
  const onread = onData && o.tls === undefined ? sharedReads(onData) : undefined;
  const raw =
    at.kind === 'unix'
      ? net.connect({ path: at.path, allowHalfOpen, onread })
      : net.connect({ host: at.host, port: at.port, allowHalfOpen, noDelay: true, onread });
  if (o.tls === undefined) return raw;
  // The start-up's hop measurement and warm-up dial a unix --listen-tls listener so: sent in the clear,
  // their PINGs failed its handshake, logged as a plaintext client's, and nothing was measured.
  const resume = resumption(o.tls, formatEndpoint(at));
  // tls.connect passes allowHalfOpen on to the TLSSocket; its type does not list it.
  const options: tls.ConnectionOptions & { allowHalfOpen: boolean } = {
    ...o.tls,
    session: o.tls.session ?? resume.session(),
    socket: raw,
    ...(at.kind === 'tcp' ? { host: at.host, port: at.port } : {}),
    allowHalfOpen,
  };
  const secure = tls.connect(options);
  resume.follow(secure);
  o.onTls?.(raw, secure);
  if (onData) secure.on('data', onData);
  return secure;
}

/**
 * The last TLS session each dial's options got from each Redis, offered on the next dial there: a
 * resumed handshake skips the certificate chain and its signature (locally 2.0 -> 1.3 ms, while a
 * client's first command waits for it). Keyed by the options object (one per proxy or per cluster
 * node host, made at start) and the endpoint, so a session goes back only where it came from, with
 * the settings that verified it. A handshake that fails forgets it; Redis may always decline it.
 */
const sessions = new WeakMap<tls.ConnectionOptions, Map<string, Buffer>>();

function resumption(o: tls.ConnectionOptions, endpoint: string): { session(): Buffer | undefined; follow(secure: tls.TLSSocket): void } {
  return {
    session: () => sessions.get(o)?.get(endpoint),
    follow: (secure) => {
      secure.on('session', (session: Buffer) => {
        let byEndpoint = sessions.get(o);
        if (byEndpoint === undefined) sessions.set(o, (byEndpoint = new Map()));
        byEndpoint.set(endpoint, session);
      });
      // On 'close', not 'error': a listener of ours would keep an error from throwing where the caller has none.
      let secured = false;
      secure.once('secureConnect', () => (secured = true));
      secure.once('close', (hadError: boolean) => {
        if (hadError && !secured) sessions.get(o)?.delete(endpoint);
      });
    },
  };
}

/** The event after which a socket from dialRedis() can carry commands. */
export function readyEvent(o: DialOptions = {}): 'connect' | 'secureConnect' {
  return o.tls !== undefined ? 'secureConnect' : 'connect';
}

/**
 * dialRedis(), resolved once the connection can carry commands (the TLS handshake done); rejects with the
 * socket's error, or a plain Error after `timeoutMs`.
 */
export function dialRedisReady(at: Endpoint, o: DialOptions = {}, timeoutMs = 1000): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    let raw: net.Socket | undefined;
    const s = dialRedis(at, { ...o, onTls: (r, secure) => ((raw = r), o.onTls?.(r, secure)) });
    const timer = setTimeout(() => {
      s.destroy();
      // TCP up, TLS not: a plaintext Redis reads the ClientHello as an unfinished inline command and waits.
      const handshakeOnly = raw !== undefined && !raw.connecting;
      reject(new Error(handshakeOnly ? `no TLS handshake within ${timeoutMs} ms (plaintext Redis?)` : `no connection within ${timeoutMs} ms`));
    }, timeoutMs);
    s.once(readyEvent(o), () => {
      clearTimeout(timer);
      s.off('error', fail);
      resolve(s);
    });
    const fail = (err: Error): void => {
      clearTimeout(timer);
      reject(err);
    };
    s.once('error', fail);
  });
}

/**
 * An errno code alone (ECONNREFUSED: the message only repeats it), or a TLS code with its reason
 * (UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate), so a failed
 * verification is named in the log. An OpenSSL error (an alert from the peer) is named by its
 * opensslReason.
 */
export function describeFailure(err: NodeJS.ErrnoException & { reason?: unknown }): string {
  if (err.code === undefined) return err.message;
  const reason = opensslReason(err);
  if (err.code.startsWith('ERR_SSL_') && reason !== undefined) return `${err.code} (${reason})`;
  return err.message.includes(err.code) ? err.code : `${err.code} (${err.message})`;
}

/**
 * An OpenSSL error's `reason` ("tlsv1 alert unknown ca"), undefined for any other error. Its message
 * is OpenSSL's whole error line (an address, a source file and line, a newline), which made a log
 * line or a start-up error two lines of internals: the reason says the same in one.
 */
export function opensslReason(err: Error & { reason?: unknown }): string | undefined {
  return typeof err.reason === 'string' && err.reason !== '' ? err.reason : undefined;
}
