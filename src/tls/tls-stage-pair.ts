/**
 * Client-side TLS as a pair of byte stages in the connection's own chains, one per direction,
 * sharing one TLSSocket. The link sits on the client's side of the pair, so it carries the raw
 * TLS bytes (ClientHello, Finished, records) and a handshake pays its real round trips on it (TLS
 * 1.3 one, TLS 1.2 two) on top of the TCP handshake the up link charges:
 *
 *   up:   raw socket -> link -> [tls: decrypt] -> frame chain, byte stages (plaintext) -> Redis
 *   down: Redis -> byte stages (plaintext) -> [tls: encrypt] -> link -> raw socket
 *
 * The up stage writes the client's bytes into the TLSSocket's transport and hands on the plaintext
 * it reads back; the down stage writes plaintext into the TLSSocket and hands on the TLS bytes
 * it produces, including the handshake replies and alerts that the up stage's input caused. The
 * tap sees plaintext, so the pair also moves its stamps to the raw socket: a request arrives when
 * its TLS bytes came in (before the up delay), a reply is written when the TLS bytes carrying it
 * reached the socket (after the down delay), as over TCP.
 */
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { Clock } from '../clock.js';
import { opensslReason } from '../redis/dial.js';
import type { BatchSink } from '../stage/byte-chain.js';
import type { ByteSink, ByteStage, EndKind } from '../stage/types.js';
import type { TlsCounters } from './counters.js';

/**
 * OpenSSL's codes for a first record that is no TLS at all: RESP, or an HTTP request, sent in the
 * clear. "wrong version number" alone did not say the client forgot TLS.
 */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_HTTP_REQUEST']);

/** What a failed client handshake's code tells a user that OpenSSL's reason does not. */
function handshakeHint(code: string | undefined): string {
  if (code === undefined) return '';
  if (NOT_TLS.has(code)) return ' (a plaintext client? this listener speaks TLS: rediss://, redis-cli --tls)';
  // A client that asks for TLS 1.3 only, at a listener held to 1.2, or one too old for 1.2.
  if (code === 'ERR_SSL_UNSUPPORTED_PROTOCOL') return ' (no TLS version both sides accept: this listener offers 1.2 up to --tls-max-version)';
  return '';
}

/** The pair's name in both chains (reserved: no user stage may take it). */
export const TLS_STAGE_NAME = 'tls';

export interface TlsStagePairOptions {
  id: number;
  secure: tls.TLSSocketOptions;
  clock: Clock;
  counters: TlsCounters;
  log: (line: string) => void;
}

export class TlsStagePair {
  /** The TLS server socket: plaintext on its readable and writable sides. */
  readonly plain: tls.TLSSocket;
  private readonly wire: Duplex;
  private upNext: ByteSink | undefined;
  private downNext: ByteSink | undefined;
  private upEnded: EndKind | undefined;
  private downEnded: EndKind | undefined;
  private upDestroyed = false;
  private downDestroyed = false;
  private failed = false;
  /** The handshake completed and the client's certificate, if asked for, verified; or it failed (counted once). */
  private secured = false;
  private handshakeFailed = false;
  /** How the client's side ended, once its FIN or RST has crossed the up link. */
  private clientEnded: EndKind | undefined;
  /** Raw up bytes: end offsets and arrival times not yet handed to TLS. */
  private readonly upOffsets: number[] = [];
  private readonly upArrivals: number[] = [];
  private upIn = 0;
  private upOut = 0;
  private lastArrivalNs = 0;
  /** TLS output handed down the chain so far, and plaintext stamps waiting for an offset to be written. */
  private wireWritten = 0;
  private readonly waiters: { wireOffset: number; plainOffset: number }[] = [];
  /** TLS output on the raw socket so far, and when it last grew. */
  private wireOut = 0;
  private wireOutNs = 0;
  /** Plaintext pushed into the down stage (the tap's down offsets). */
  private plainIn = 0;
  private report: ((plainEndOffset: number, nowNs: number) => void) | undefined;

  constructor(private readonly o: TlsStagePairOptions) {
    const counters = o.counters;
    this.wire = new Duplex({
      read: () => undefined,
      write: (chunk: Buffer, _enc, done) => {
        counters.wireBytesDown += chunk.length;
        this.wireWritten += chunk.length;
        if (!this.downDestroyed) this.downNext?.push(chunk, o.clock.nowNs());
        done();
      },
      final: (done) => {
        this.endDown('end');
        done();
      },
    });
    this.plain = new tls.TLSSocket(this.wire, { ...o.secure, isServer: true });
    const plain = this.plain;
    plain.once('secure', () => {
      const refused = clientCertificateError(plain, o.secure);
      if (refused) {
        this.failed = true;
        this.handshakeFailed = true;
        counters.handshakeFailures++;
        o.log(`conn ${o.id}: client TLS ${refused.code ?? ''} ${refused.message} (client certificate)`.replace(/ +/g, ' '));
        plain.destroy();
        this.endUp('reset');
        return;
      }
      this.secured = true;
      counters.handshakes++;
    });
    plain.on('data', (chunk: Buffer) => {
      if (!this.upDestroyed) this.upNext?.push(chunk, o.clock.nowNs());
    });
    plain.on('end', () => {
      // A client that left during its handshake had no session with Redis: reset the upstream, as a
      // failed handshake does. Ending it sent Redis a close_notify in the middle of the proxy's
      // own TLS handshake, which Redis answered with an alert logged as an upstream failure.
      this.closedInHandshake();
      this.endUp(this.handshakeFailed ? 'reset' : 'end');
    });
    plain.on('error', (err: NodeJS.ErrnoException) => {
      if (!this.secured && !this.handshakeFailed) counters.handshakeFailures++;
      this.failed = this.handshakeFailed = true;
      const hint = handshakeHint(err.code);
      o.log(`conn ${o.id}: client TLS ${err.code ?? ''} ${opensslReason(err) ?? err.message}${hint}`.replace(/ +/g, ' '));
      this.endUp('reset');
    });
    plain.on('close', () => {
      this.closedInHandshake();
      this.endDown(this.failed ? 'reset' : 'end');
    });
  }

  /** A read from the raw socket, before it enters the up link: its TLS bytes and when they came. */
  received(bytes: number, nowNs: number): void {
    this.o.counters.wireBytesUp += bytes;
    this.upIn += bytes;
    this.upOffsets.push(this.upIn);
    this.upArrivals.push(nowNs);
  }

  /** Arrival on the raw socket of the last raw byte the up link has handed to TLS. */
  arrivalNs(): number {
    return this.lastArrivalNs;
  }

  /** The down chain wrote TLS bytes up to `wireEndOffset` to the raw socket. */
  written(wireEndOffset: number, nowNs: number): void {
    this.wireOut = wireEndOffset;
    this.wireOutNs = nowNs;
    const w = this.waiters;
    while (w.length > 0 && w[0]!.wireOffset <= wireEndOffset) this.report?.(w.shift()!.plainOffset, nowNs);
  }

  /** The up stage: after the link, TLS bytes in, plaintext out to `next`. */
  upStage(next: ByteSink): ByteStage {
    this.upNext = next;
    const wire = this.wire;
    return {
      get pendingBytes() {
        return wire.readableLength;
      },
      push: (chunk) => this.decrypt(chunk),
      end: (kind) => {
        this.clientEnded = kind;
        if (kind === 'end') this.wire.push(null);
        else {
          this.plain.destroy();
          this.endUp('reset');
        }
      },
      drain: () => undefined, // never removed
      destroy: () => {
        this.upDestroyed = true;
        this.destroyIfDone();
      },
    };
  }

  /**
   * The down stage: before the link, plaintext in, TLS bytes out to `next`. `report` hears when the
   * plaintext up to an offset is on the raw socket (the tap's written stamp).
   */
  downStage(next: ByteSink, report: (plainEndOffset: number, nowNs: number) => void): ByteStage & BatchSink {
    this.downNext = next;
    this.report = report;
    const plain = this.plain;
    return {
      get pendingBytes() {
        return plain.writableLength;
      },
      push: (chunk) => {
        this.encrypt(chunk);
        this.stamp();
      },
      pushMany: (chunks) => {
        // One batch, one TLS write: as one corked socket write over TCP.
        this.plain.cork();
        for (let i = 0; i < chunks.length; i++) this.encrypt(chunks[i]!);
        this.plain.uncork();
        this.stamp();
      },
      end: (kind) => {
        if (kind === 'reset') {
          this.endDown('reset');
          this.plain.destroy();
        } else if (!this.plain.writableEnded) this.plain.end();
      },
      drain: () => undefined, // never removed
      destroy: () => {
        this.downDestroyed = true;
        this.destroyIfDone();
      },
    };
  }

  /**
   * A client that closed after its first TLS bytes, the socket closing before the handshake was
   * over, failed it, as tls.Server says (tlsClientError ECONNRESET): a Node client (ioredis,
   * node-redis) that does not trust the proxy's certificate closes so, with no alert, and was
   * neither logged nor counted. Checked at the socket's end or close, after any 'secure' the
   * client's last bytes caused. A connection that sent nothing (a port probe) did not try TLS; one the proxy
   * closed (its upstream failed) has its own line.
   */
  private closedInHandshake(): void {
    const kind = this.clientEnded;
    if (kind === undefined || this.secured || this.handshakeFailed || this.upIn === 0) return;
    this.handshakeFailed = true;
    this.o.counters.handshakeFailures++;
    this.o.log(`conn ${this.o.id}: client TLS ${kind === 'reset' ? 'reset' : 'closed'} during the handshake (no alert: does the client trust the certificate?)`);
  }

  /** The socket outlives one direction's stage: the other may still carry a side's last bytes. */
  private destroyIfDone(): void {
    if (this.upDestroyed && this.downDestroyed) this.plain.destroy();
  }

  private decrypt(chunk: Buffer): void {
    this.upOut += chunk.length;
    while (this.upOffsets.length > 0 && this.upOffsets[0]! <= this.upOut) {
      this.upOffsets.shift();
      this.lastArrivalNs = this.upArrivals.shift()!;
    }
    this.wire.push(chunk);
  }

  private encrypt(chunk: Buffer): void {
    this.plainIn += chunk.length;
    const p = this.plain;
    if (!this.downDestroyed && !p.destroyed && !p.writableEnded) p.write(chunk);
  }

  /** The plaintext so far is written once the TLS bytes produced so far are. */
  private stamp(): void {
    // With no delay the TLS bytes can be on the socket before the plaintext write returns: waiting
    // for a later write would stamp this reply with the next one's time (and merge their round trips).
    if (this.wireOut >= this.wireWritten) this.report?.(this.plainIn, this.wireOutNs);
    else this.waiters.push({ wireOffset: this.wireWritten, plainOffset: this.plainIn });
  }

  private endUp(kind: EndKind): void {
    if (this.upEnded === 'reset' || this.upEnded === kind) return;
    this.upEnded = kind;
    if (!this.upDestroyed) this.upNext?.end(kind, this.o.clock.nowNs());
  }

  private endDown(kind: EndKind): void {
    if (this.downEnded === 'reset' || this.downEnded === kind) return;
    this.downEnded = kind;
    if (!this.downDestroyed) this.downNext?.end(kind, this.o.clock.nowNs());
  }
}

/**
 * Why the client's certificate does not verify against the listener's CA, or undefined when it does
 * or none is asked for. OpenSSL's verify callback in Node accepts every certificate and leaves the
 * verdict to the socket's owner: tls.Server rejects in its own 'secure' handler, which a bare
 * TLSSocket (isServer, as here) does not get, so without this check any certificate got through.
 * `_handle.verifyError()` is what that handler reads (lib/_tls_wrap.js onServerSocketSecure).
 */
function clientCertificateError(socket: tls.TLSSocket, secure: tls.TLSSocketOptions): NodeJS.ErrnoException | undefined {
  if (!secure.requestCert || secure.rejectUnauthorized === false) return undefined;
  const handle = (socket as unknown as { _handle?: { verifyError?: () => NodeJS.ErrnoException | null } })._handle;
  if (typeof handle?.verifyError !== 'function') return Object.assign(new Error('client certificate could not be checked'), { code: 'ERR_TLS_VERIFY' });
  return handle.verifyError() ?? undefined;
}
