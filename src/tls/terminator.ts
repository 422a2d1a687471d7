/**
 * Client-side TLS, terminated behind the simulated link: the client's raw bytes (ClientHello,
 * Finished, records) cross the up delay line before they reach the TLS server socket, and the
 * TLS server's output crosses the down delay line before it reaches the client's TCP socket. So
 * a handshake pays its real round trips on the link (TLS 1.3 one, TLS 1.2 two), on top of the TCP
 * handshake the up line charges. `plain` is a TLSSocket the connection treats as its client: it
 * reads and writes plaintext, and the connection runs its own link stages with no delay.
 *
 *   raw socket -> up LinkStage -> Duplex -> TLSSocket (plaintext) -> connection chain -> Redis
 *   raw socket <- down LinkStage <- Duplex <- TLSSocket (plaintext) <- connection chain <- Redis
 */
import type net from 'node:net';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { LinkState } from '../link/link-state.js';
import { LinkStage } from '../link/link-stage.js';
import { SocketSink } from '../stage/socket-sink.js';
import type { TlsCounters } from './counters.js';
import type { Direction, EndKind, Scheduler } from '../stage/types.js';

export interface TlsTerminatorOptions {
  id: number;
  secure: tls.TLSSocketOptions;
  link: LinkState;
  scheduler: Scheduler;
  handshake: boolean;
  highWaterBytes: number;
  counters: TlsCounters;
  log: (line: string) => void;
  onLateness?: (lateNs: number, direction: Direction) => void;
}

/**
 * What the tap needs to time a command as over TCP: the plaintext reaches the connection after the
 * up delay and leaves it before the down delay, so its stamps are moved back to the raw socket.
 */
export interface ClientTiming {
  /** Arrival on the raw socket of the last raw byte the up line has handed to TLS. */
  arrivalNs(): number;
  /** Calls back when everything TLS has written so far has left the down line onto the raw socket. */
  whenWritten(done: (nowNs: number) => void): void;
}

export class TlsTerminator implements ClientTiming {
  readonly plain: tls.TLSSocket;
  private readonly upLink: LinkStage;
  private readonly downLink: LinkStage;
  private rawPaused = false;
  private waitingWrite: (() => void) | undefined;
  private downEnded = false;
  private plainFailed = false;
  /** Raw up bytes: end offsets and arrival times not yet handed to TLS. */
  private readonly upOffsets: number[] = [];
  private readonly upArrivals: number[] = [];
  private upIn = 0;
  private upOut = 0;
  private lastArrivalNs = 0;
  /** TLS output written into the down line, and callbacks waiting for an offset to reach the socket. */
  private wireWritten = 0;
  private readonly waiters: { offset: number; done: (nowNs: number) => void }[] = [];
  /** TLS output on the raw socket so far, and when it last grew. */
  private wireOut = 0;
  private wireOutNs = 0;

  constructor(
    readonly raw: net.Socket,
    private readonly o: TlsTerminatorOptions,
  ) {
    const clock = o.scheduler.clock;
    const acceptedNs = clock.nowNs();
    raw.setNoDelay(true);
    const counters = o.counters;
    const wire = new Duplex({
      read: () => {
        if (!this.rawPaused) return;
        this.rawPaused = false;
        raw.resume();
      },
      write: (chunk: Buffer, _enc, done) => {
        counters.wireBytesDown += chunk.length;
        this.wireWritten += chunk.length;
        this.downLink.push(chunk, clock.nowNs());
        if (this.downPendingBytes() > o.highWaterBytes) this.waitingWrite = done;
        else done();
      },
      final: (done) => {
        this.endDown('end');
        done();
      },
    });
    const late = o.onLateness;
    const linkOptions = { scheduler: o.scheduler, bandwidthBps: () => o.link.bandwidthBps() };
    this.upLink = new LinkStage(
      {
        ...linkOptions,
        onLateness: late && ((ns) => late(ns, 'up')),
        sampleDelayNs: () => o.link.sampleNs('up'),
        notBeforeNs: o.handshake ? acceptedNs + o.link.rttUs * 1000 : undefined,
      },
      {
        push: (chunk) => {
          this.upOut += chunk.length;
          while (this.upOffsets.length > 0 && this.upOffsets[0]! <= this.upOut) {
            this.upOffsets.shift();
            this.lastArrivalNs = this.upArrivals.shift()!;
          }
          if (!wire.push(chunk) && !this.rawPaused) {
            this.rawPaused = true;
            raw.pause();
          }
        },
        end: (kind) => {
          if (kind === 'end') wire.push(null);
          else this.plain.destroy(Object.assign(new Error('client reset'), { code: 'ECONNRESET' }));
        },
      },
    );
    const sink = new SocketSink(raw, (offset, nowNs) => this.written(offset, nowNs), (kind) => (kind === 'end' ? raw.end() : raw.destroy()));
    this.downLink = new LinkStage({ ...linkOptions, onLateness: late && ((ns) => late(ns, 'down')), sampleDelayNs: () => o.link.sampleNs('down') }, sink);
    raw.on('drain', () => this.releaseWrite());

    this.plain = new tls.TLSSocket(wire, { ...o.secure, isServer: true });
    let secured = false;
    this.plain.once('secure', () => {
      secured = true;
      counters.handshakes++;
    });
    this.plain.on('error', (err: NodeJS.ErrnoException) => {
      this.plainFailed = true;
      if (!secured) counters.handshakeFailures++;
      o.log(`conn ${o.id}: client TLS ${err.code ?? ''} ${err.message}`.replace(/ +/g, ' '));
    });
    this.plain.on('close', () => {
      this.endDown(this.plainFailed ? 'reset' : 'end');
      // The client may never close its half: do not keep the raw socket forever.
      setTimeout(() => raw.destroy(), 30_000).unref();
    });

    raw.on('data', (chunk: Buffer) => {
      counters.wireBytesUp += chunk.length;
      const now = clock.nowNs();
      this.upIn += chunk.length;
      this.upOffsets.push(this.upIn);
      this.upArrivals.push(now);
      this.upLink.push(chunk, now);
    });
    raw.on('end', () => this.upLink.end('end', clock.nowNs()));
    raw.on('error', () => this.upLink.end('reset', clock.nowNs()));
    raw.on('close', () => {
      this.upLink.end('reset', clock.nowNs());
    });
  }

  arrivalNs(): number {
    return this.lastArrivalNs;
  }

  whenWritten(done: (nowNs: number) => void): void {
    // With no delay the TLS bytes can be on the socket before the plaintext write reports back: waiting
    // for a later write would stamp this reply with the next one's time (and merge their round trips).
    if (this.wireOut >= this.wireWritten) done(this.wireOutNs);
    else this.waiters.push({ offset: this.wireWritten, done });
  }

  private written(offset: number, nowNs: number): void {
    this.wireOut = offset;
    this.wireOutNs = nowNs;
    const w = this.waiters;
    while (w.length > 0 && w[0]!.offset <= offset) w.shift()!.done(nowNs);
    this.releaseWrite();
  }

  /** Drops what the two delay lines hold and closes the raw socket (proxy shutdown). */
  destroy(): void {
    this.upLink.destroy();
    this.downLink.destroy();
    this.raw.destroy();
  }

  private downPendingBytes(): number {
    return this.downLink.pendingBytes + this.raw.writableLength;
  }

  private releaseWrite(): void {
    const done = this.waitingWrite;
    if (done === undefined || this.downPendingBytes() > this.o.highWaterBytes / 2) return;
    this.waitingWrite = undefined;
    done();
  }

  private endDown(kind: EndKind): void {
    if (this.downEnded) return;
    this.downEnded = true;
    this.downLink.end(kind, this.o.scheduler.clock.nowNs());
  }
}
