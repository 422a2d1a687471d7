import net from 'node:net';
import type tls from 'node:tls';
import { ProxyTlsCounters, type TlsCounters } from '../tls/counters.js';
import { TlsStagePair } from '../tls/tls-stage-pair.js';
import { realClock } from '../clock.js';
import { sharedScheduler } from '../link/shared-scheduler.js';
import { listenOn, listenRemovingStale } from '../http/listen.js';
import { ProxiedConnection } from './connection.js';
import { drainConnections, drainLimitMs } from './drain.js';
import type { Endpoint } from '../endpoint.js';
import { ProxyStages } from './proxy-stages.js';
import { RefusalWatch } from './refusal-watch.js';
import { openStartUpListener, type StartUpListener } from './start-up-listener.js';
import { PendingAccepts } from './pending-accepts.js';
import { ConnectionCap } from './connection-cap.js';
import { ConnectionLog } from './connection-log.js';
import { closeWhenIdle } from './idle-timeout.js';
import type { Scheduler } from '../stage/types.js';
import { LiveSet } from '../stats/live-set.js';
import type { ProxyListenerOptions } from './listener-options.js';

/** How long close() waits for its connections' sockets to say they closed (they do at once). */
const CLOSE_WAIT_MS = 2000;

/** A client's FIN is forwarded, not answered: the accepted sockets, libuv's and the rest of a burst, stay half open. */
const ALLOW_HALF_OPEN = true;

/** The listening side: accepts clients and gives each its own upstream connection. */
export class ProxyListener {
  /** The listening server; replaced when the listener listens again after Redis was down (refusal-watch.ts). */
  private server: net.Server;
  private readonly refusals: RefusalWatch;
  /** Off until the proxy has started: the start-up hop measurement must not close the listener. */
  watchRefusals = false;
  private readonly live = new LiveSet<ProxiedConnection>();
  /** close() is waiting for the last connection to close. */
  private emptied: (() => void) | undefined;
  /** The start-up's own listener while the hop measurement and the warm-up run (start-up-listener.ts). */
  private startUp: StartUpListener | undefined;
  /** Client-side TLS handshakes and wire bytes (all zero without listenTls). */
  private readonly tls = new ProxyTlsCounters();
  private nextId = 1;
  private readonly scheduler: Scheduler;
  private readonly cap: ConnectionCap;
  /** The connections' own log lines, each kind at most once a second. */
  private readonly connLog: ConnectionLog;
  /** The rest of a burst of clients, accepted with the first (pending-accepts.ts); undefined without the addon. */
  private readonly pending = PendingAccepts.open(ALLOW_HALF_OPEN);
  /** The stages every connection runs (the proxy handle's StageHost). */
  readonly stages = new ProxyStages(() => this.live, (line) => this.o.log(line));
  address = '';
  host: string | undefined;
  port: number | undefined;

  constructor(private readonly o: ProxyListenerOptions) {
    this.scheduler = o.scheduler ?? sharedScheduler();
    this.cap = new ConnectionCap(o.maxConnections, this.scheduler.clock, o.log);
    this.connLog = new ConnectionLog(this.scheduler.clock, o.log);
    this.server = this.newServer(false);
    this.refusals = new RefusalWatch({
      upstream: o.upstream,
      tls: o.upstreamTls,
      stopListening: () => this.server.close(),
      listenAgain: () => this.listenAgain(),
      log: o.log,
    });
  }

  /** `startUp`: the start-up's own listener (openStartUp), whose connections are the proxy's own. */
  private newServer(startUp: boolean): net.Server {
    const admit = startUp ? this.admitOwn : this.admit;
    // Not Node's maxConnections: it counts only the clients libuv accepted, not the rest of a burst.
    const server: net.Server = net.createServer({ allowHalfOpen: ALLOW_HALF_OPEN, pauseOnConnect: false, noDelay: true }, (socket) => {
      admit(socket);
      this.pending?.drain(server, admit);
    });
    return server;
  }

  /** Clients accepted since start (or the last resetAccepted()): /stats' total when there is no tap. */
  accepted = 0;

  /** A client accepted, by libuv or with the rest of its burst: opened, unless past --max-connections. */
  private readonly admit = (socket: net.Socket): void => {
    if (!this.cap.admits(socket)) return;
    this.accepted++;
    this.accept(socket, this.o.listenTls);
  };

  /** Counts from here, those still open included (as a tap's total after a reset). */
  resetAccepted(): void {
    this.accepted = this.live.size;
    this.cap.resetRefused();
  }

  /**
   * The start-up's hop measurement and warm-up: TLS as a client's, but no client certificate asked
   * for (they have none to give, and a failed handshake would be all they measured).
   */
  private readonly admitOwn = (socket: net.Socket): void => {
    const secure = this.o.listenTls;
    this.accept(socket, secure?.requestCert ? { ...secure, requestCert: false, rejectUnauthorized: false } : secure);
  };

  /** After Redis was down: a new server on the address the first one bound (its port, not port 0). */
  private async listenAgain(): Promise<void> {
    const l = this.o.listen;
    const server = this.newServer(false);
    await listenOn(server, l.kind === 'tcp' ? { ...l, port: this.port ?? l.port } : l, '--listen');
    server.on('error', (err) => this.o.log(`listener error: ${err.message}`));
    this.server = server;
  }

  /**
   * Redis refused the start's own dial (refusal-watch.ts, upstreamRefuses): stop listening now, as
   * after a client's refused dial, so the first client is refused too rather than accepted and reset.
   */
  refusedAtStart(): void {
    this.refusals.refused(true);
  }

  /**
   * Clients closed at once because --max-connections live connections existed, since start or the
   * last resetAccepted(): /stats' `connections.refused`; undefined without the cap.
   */
  get refused(): number | undefined {
    return this.cap.capped ? this.cap.refusedSinceReset : undefined;
  }

  async listen(): Promise<void> {
    const bound = await listenRemovingStale(this.server, this.o.listen, '--listen', this.o.log);
    this.address = bound.address;
    this.host = bound.host;
    this.port = bound.port;
    // Only now: a failed listen is reported once, by the rejection, not also as a log line.
    this.server.on('error', (err) => this.o.log(`listener error: ${err.message}`));
  }

  /** Both sides' TLS counters (zero for a side without TLS). */
  tlsCounters(): TlsCounters {
    return this.tls.snapshot();
  }

  /** The TLS counters count from here, as the tap's totals do after a reset. */
  resetTlsCounters(): void {
    this.tls.reset();
  }

  get connectionCount(): number {
    return this.live.size;
  }

  /**
   * Opens the start-up's own listener (start-up-listener.ts) and resolves with where to dial it:
   * its connections take the same accept path as a client's, before `listen()` binds `--listen`.
   */
  async openStartUp(): Promise<Endpoint> {
    this.startUp ??= await openStartUpListener(this.newServer(true), this.o.listen);
    return this.startUp.at;
  }

  /**
   * Closes the start-up's listener; its connections are the caller's to have closed. Clients are
   * numbered from 1 again (after any of the start-up's still open), so a trace's and /connections'
   * first client is conn 1, not one past the hop measurement's and the warm-up's.
   */
  async closeStartUp(): Promise<void> {
    const s = this.startUp;
    this.startUp = undefined;
    await s?.close();
    let lastId = 0;
    for (const c of this.live) lastId = Math.max(lastId, c.id);
    this.nextId = lastId + 1;
  }

  /** Resolves once no connection is live or `withinMs` passed (checked every millisecond); false if some still are. */
  async drained(withinMs: number): Promise<boolean> {
    const endMs = Date.now() + withinMs;
    while (this.live.size > 0 && Date.now() < endMs) await new Promise((r) => setTimeout(r, 1));
    return this.live.size === 0;
  }

  connections(): ProxiedConnection[] {
    return [...this.live];
  }

  /**
   * Stops accepting, lets the connections deliver what they hold (`drain`; drain.ts, for as long as
   * drainLimitMs() gives for the link now) unless told not to (as toxiproxy closes), then closes
   * every one still open.
   */
  async close(drain = true): Promise<void> {
    this.refusals.close();
    await this.closeStartUp();
    // Already closed while Redis was down: close() then calls back at once (with an error to ignore).
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const link = this.o.link;
    if (drain) await drainConnections(this.live, drainLimitMs(link.rttNowUs(), link.settings.jitterUs));
    // Each connection's close (its tap's last events) before close() resolves: the server's close
    // does not wait for upstream sockets. Bounded, so a socket that never closes cannot hang it.
    const emptied = new Promise<void>((resolve) => {
      if (this.live.size === 0) return resolve();
      this.emptied = resolve;
      setTimeout(resolve, CLOSE_WAIT_MS).unref();
    });
    for (const c of this.live) c.destroy();
    await Promise.all([closed, emptied]);
    this.connLog.close();
  }

  private accept(socket: net.Socket, secure: tls.TLSSocketOptions | undefined): void {
    // A burst of connections is set up in one run of callbacks: deliveries due meanwhile go first.
    this.scheduler.catchUp?.(this.scheduler.clock.nowNs());
    const id = this.nextId++;
    const tap = this.o.taps?.openConnection({
      id,
      // Asked for later, if at all (a getpeername per connection was part of the set-up burst).
      client: () => peerName(socket, this.o.listen.kind),
      onEvent: this.o.onEvent,
      argSizes: this.o.argSizes,
      keyHash: this.o.keyHash,
    });
    let clientTls: TlsStagePair | undefined;
    if (secure) {
      const t = (clientTls = new TlsStagePair({ id, secure, clock: this.scheduler.clock, counters: this.tls.client, log: this.connLog.line }));
      const onEvent = this.o.onEvent;
      // Which version, and whether resumed, is what a recording needs to know the set-up's round trips.
      if (onEvent) t.plain.once('secure', () => onEvent({ type: 'tls', conn: id, atUs: realClock.nowNs() / 1000, version: t.plain.getProtocol() ?? '?', resumed: t.plain.isSessionReused() }));
    }
    const conn = new ProxiedConnection(socket, {
      id,
      upstream: this.o.upstream,
      link: this.o.link,
      scheduler: this.scheduler,
      tap,
      highWaterBytes: this.o.highWaterBytes,
      handshake: this.o.handshake,
      connectTimeoutMs: this.o.connectTimeoutMs,
      log: this.connLog.line,
      onLateness: this.o.onLateness,
      onRead: this.o.monitor?.onRead,
      readWaitNs: this.o.monitor?.readWaitNs,
      onAdded: this.o.monitor?.onAdded,
      onReplyAdded: this.o.monitor?.onReplyAdded,
      onRefused: () => {
        if (this.watchRefusals) this.refusals.refused();
      },
      onClosed: (c) => {
        this.live.delete(c);
        this.o.monitor?.closed();
        if (this.live.size === 0) this.emptied?.();
      },
      stages: this.stages,
      upstreamTls: this.o.upstreamTls,
      upstreamMeter: this.o.upstreamTls && this.tls.upstream,
      clientTls,
    });
    this.live.add(conn);
    this.o.monitor?.opened();
    if (this.o.idleTimeoutMs) closeWhenIdle(socket, conn, tap, this.o.idleTimeoutMs, this.connLog.line);
  }
}

/**
 * The client's address as /connections shows it ("127.0.0.1:51234"), or "unix". A TCP socket
 * closed before anyone asked has no address left to read (Node reads it lazily): "tcp (closed)".
 */
function peerName(socket: net.Socket, kind: 'tcp' | 'unix'): string {
  if (socket.remoteAddress) return `${socket.remoteAddress}:${socket.remotePort}`;
  return kind === 'unix' ? 'unix' : 'tcp (closed)';
}
