/**
 * A Redis that is down looks down. A client that dials a stopped Redis directly is refused
 * (ECONNREFUSED) one round trip after its SYN; through a listener that accepts first, it would read
 * a close instead ("Server closed the connection"). The proxy learns that Redis is down only by
 * dialing it, so after a refused dial it stops listening: later clients are refused by the kernel,
 * as Redis's own port would refuse them. A probe dials Redis every REFUSED_PROBE_INTERVAL_MS, and
 * the listener listens again on the same address once one connects. Live connections are not
 * touched. docs/redis-down.md has what ioredis, redis-py and redis-cli report either way.
 */
import net from 'node:net';
import type tls from 'node:tls';
import type { Endpoint } from '../endpoint.js';
import { dialRedis } from '../redis/dial.js';

/** How often a closed listener dials Redis to learn that it is back: what a client's reconnect waits for at most beyond its own backoff. */
export const REFUSED_PROBE_INTERVAL_MS = 50;

/**
 * A dial that says Redis is down: refused (nothing listens on the port, or a socket file left by a
 * killed Redis), or a unix socket's path gone (Redis removes it when it stops). Either way a direct
 * client would get an error from its own connect, not a connection that closes.
 */
export function isRefusal(code: string | undefined): boolean {
  return code === 'ECONNREFUSED' || code === 'ENOENT';
}

/**
 * How long the start waits for its own dial's answer before it binds --listen. A refusal from a
 * Redis on this host or nearby comes within a round trip; a dial still unanswered then (a
 * firewalled host) is not a refusal, and the start does not wait it out.
 */
export const START_DIAL_WAIT_MS = 250;

/**
 * One dial at start: true when Redis refuses it (nothing listens), false when it connects, fails
 * otherwise or is unanswered within `waitMs`. Never rejects. A Redis that is down when the proxy
 * starts is then refused from the first client on, instead of the first one being accepted and
 * reset (docs/redis-down.md). The TCP connect is the answer; to a TLS Redis (`secure`) the dial
 * then closes as closeAnswered() says.
 */
export function upstreamRefuses(upstream: Endpoint, secure?: tls.ConnectionOptions, waitMs = START_DIAL_WAIT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    let refused = false;
    let raw: net.Socket | undefined;
    const s = dialRedis(upstream, { tls: secure, onTls: (r) => (raw = r) });
    // Resolved once the socket has closed: the start leaves no handle of its own behind.
    s.once('close', () => resolve(refused));
    const timer = setTimeout(() => s.destroy(), waitMs);
    (raw ?? s).once('connect', () => {
      clearTimeout(timer);
      closeAnswered(s, secure !== undefined, waitMs);
    });
    s.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      refused ||= isRefusal(err.code);
      s.destroy();
    });
  });
}

/**
 * Closes a dial whose TCP connect was the answer. To a TLS Redis it first finishes the handshake
 * (at most `waitMs`) and ends with a close_notify: a TCP connection closed before or during the
 * handshake makes Redis log "Error accepting a client connection: ... unexpected eof while
 * reading", at every proxy start and every return of a Redis that was down. The caller handles
 * the socket's errors.
 */
function closeAnswered(s: net.Socket, secure: boolean, waitMs: number): void {
  if (!secure) return void s.destroy();
  const timer = setTimeout(() => s.destroy(), waitMs);
  s.once('secureConnect', () => {
    clearTimeout(timer);
    s.end();
  });
  s.once('close', () => clearTimeout(timer));
}

export interface RefusalWatchOptions {
  upstream: Endpoint;
  /** The upstream's TLS options (`--upstream-tls`): the probe then closes its dial cleanly. */
  tls?: tls.ConnectionOptions;
  /** Stop accepting clients (close the listening socket, not the connections). */
  stopListening: () => void;
  /** Listen again on the same address; a rejection is logged and the probe goes on. */
  listenAgain: () => Promise<void>;
  log: (line: string) => void;
}

export class RefusalWatch {
  private down = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private probe: net.Socket | undefined;
  /** The last listen failure logged: the probe retries every REFUSED_PROBE_INTERVAL_MS, the log says each cause once. */
  private listenFailure: string | undefined;

  constructor(private readonly o: RefusalWatchOptions) {}

  /** True while the listener is closed because Redis refused. */
  get refusing(): boolean {
    return this.down;
  }

  /** A dial to Redis was refused: a client's, or the start's own (`atStart`). */
  refused(atStart = false): void {
    if (this.down || this.closed) return;
    this.down = true;
    this.o.stopListening();
    const what = atStart ? "the start-up's dial" : 'a connection';
    this.o.log(`upstream refused ${what}: not listening until it answers, so clients are refused as by Redis itself`);
    this.schedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.probe?.destroy();
  }

  private schedule(): void {
    if (this.closed) return;
    // Ref'd: while the listener is closed the probe stands in for it, and a listening proxy keeps its
    // process alive (unref'd, `redis-rtt proxy` exited by itself once Redis refused).
    this.timer = setTimeout(() => this.dial(), REFUSED_PROBE_INTERVAL_MS);
  }

  private dial(): void {
    // A TCP connect is the answer, with no command; a TLS upstream's handshake only to close cleanly.
    let raw: net.Socket | undefined;
    const s = (this.probe = dialRedis(this.o.upstream, { tls: this.o.tls, onTls: (r) => (raw = r) }));
    let answered = false;
    (raw ?? s).once('connect', () => {
      answered = true;
      closeAnswered(s, this.o.tls !== undefined, START_DIAL_WAIT_MS);
      if (this.closed) return;
      this.o.listenAgain().then(
        () => {
          this.down = false;
          this.listenFailure = undefined;
          this.o.log('upstream answers again: listening');
        },
        (err: Error) => {
          if (err.message !== this.listenFailure) {
            this.listenFailure = err.message;
            this.o.log(`upstream answers again, but listening failed: ${err.message}; trying again every ${REFUSED_PROBE_INTERVAL_MS} ms (logged once)`);
          }
          this.schedule();
        },
      );
    });
    s.on('error', () => {
      s.destroy();
      if (!answered) this.schedule();
    });
  }
}
