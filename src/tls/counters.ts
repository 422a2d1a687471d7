/**
 * TLS counters of both sides (`/stats` `tls`, `proxy.tlsStats()`): handshakes and the TLS bytes on
 * the wire. The plaintext RESP bytes are the tap's (`totals.bytesUp` / `bytesDown`), so the
 * difference is what TLS costs on the wire. Sides without TLS stay zero.
 */
import type net from 'node:net';
import type tls from 'node:tls';

export interface TlsCounters {
  /** Client side (`listenTls`): handshakes completed and failed. */
  handshakes: number;
  handshakeFailures: number;
  /** Client side: TLS bytes read from clients' TCP sockets and written to them. */
  wireBytesUp: number;
  wireBytesDown: number;
  /**
   * Upstream side (`upstreamTls`): handshakes with Redis completed, and TCP connections that closed without one
   * because the handshake failed (an error, Redis closed, no answer in time); not a dial dropped because its client went.
   */
  upstreamHandshakes: number;
  upstreamHandshakeFailures: number;
  /** Upstream side: TLS bytes written to Redis's TCP socket (up) and read from it (down). */
  upstreamWireBytesUp: number;
  upstreamWireBytesDown: number;
}

export function newTlsCounters(): TlsCounters {
  return {
    handshakes: 0,
    handshakeFailures: 0,
    wireBytesUp: 0,
    wireBytesDown: 0,
    upstreamHandshakes: 0,
    upstreamHandshakeFailures: 0,
    upstreamWireBytesUp: 0,
    upstreamWireBytesDown: 0,
  };
}

/** Field-wise sum (a cluster proxy's nodes). */
export function addTlsCounters(into: TlsCounters, c: TlsCounters): TlsCounters {
  for (const k of Object.keys(into) as (keyof TlsCounters)[]) into[k] += c[k];
  return into;
}

/**
 * Upstream TLS bytes. The TLSSocket the connection reads carries plaintext; the TCP socket under it
 * (dialed separately for this: src/proxy/dial.ts) counts the wire bytes in its handle, read when
 * asked for live sockets and once at close for the others.
 */
export class UpstreamTlsMeter {
  private readonly live = new Set<net.Socket>();
  private closedUp = 0;
  private closedDown = 0;
  private handshakes = 0;
  private failures = 0;
  /** Dials whose handshake got no answer in time (the connect timeout ended them): failures. */
  private readonly unanswered = new WeakSet<net.Socket>();
  /** What fill() gave at the last reset(): live sockets' counts run on, so they are taken off. */
  private base = newTlsCounters();

  track(raw: net.Socket, secure: tls.TLSSocket): void {
    this.live.add(raw);
    let tcpUp = false;
    let secured = false;
    // What makes a failure: the handshake's own error (a certificate that does not verify, an alert,
    // Redis closing or resetting mid-handshake), or no answer in time. A dial the proxy drops because
    // its client went (a client's failed handshake, a client that left) has none: it did not fail.
    let failed = false;
    raw.once('connect', () => (tcpUp = true));
    secure.on('error', () => (failed = true));
    secure.once('secureConnect', () => {
      secured = true;
      this.handshakes++;
    });
    raw.once('close', () => {
      this.live.delete(raw);
      this.closedUp += raw.bytesWritten;
      this.closedDown += raw.bytesRead;
      if (tcpUp && !secured && (failed || this.unanswered.has(secure))) this.failures++;
    });
  }

  /** `secure`'s dial is ended for want of a handshake within the connect timeout: it counts as failed. */
  noAnswer(secure: net.Socket): void {
    this.unanswered.add(secure);
  }

  /** Writes the upstream fields of `c`. */
  fill(c: TlsCounters): TlsCounters {
    let up = this.closedUp;
    let down = this.closedDown;
    for (const raw of this.live) {
      up += raw.bytesWritten;
      down += raw.bytesRead;
    }
    const b = this.base;
    c.upstreamHandshakes = this.handshakes - b.upstreamHandshakes;
    c.upstreamHandshakeFailures = this.failures - b.upstreamHandshakeFailures;
    c.upstreamWireBytesUp = up - b.upstreamWireBytesUp;
    c.upstreamWireBytesDown = down - b.upstreamWireBytesDown;
    return c;
  }

  /** Counts from now on. */
  reset(): void {
    this.base = newTlsCounters();
    this.base = this.fill(newTlsCounters());
  }
}

/** One proxy's TLS counters: its clients' side and its upstream side, read and reset together. */
export class ProxyTlsCounters {
  /** Client side: the TLS stages add to it. */
  readonly client = newTlsCounters();
  readonly upstream = new UpstreamTlsMeter();

  snapshot(): TlsCounters {
    return this.upstream.fill({ ...this.client });
  }

  /** Counts from here, as the tap's totals do after a reset. */
  reset(): void {
    Object.assign(this.client, newTlsCounters());
    this.upstream.reset();
  }
}
