import net from 'node:net';
import { DelayLine, type EndKind } from '../link/delay-line.js';
import type { LinkState } from '../link/link-state.js';
import type { Scheduler } from '../link/scheduler.js';
import type { ConnectionTap } from '../tap/types.js';
import type { Endpoint } from './endpoint.js';
import { TapAfterForward } from './tap-after.js';

export interface ConnectionOptions {
  id: number;
  upstream: Endpoint;
  link: LinkState;
  scheduler: Scheduler;
  tap: ConnectionTap | undefined;
  highWaterBytes: number;
  handshake: boolean;
  connectTimeoutMs: number;
  log: (line: string) => void;
  /** Lateness of each scheduled delivery (ns), for the proxy's precision histogram. */
  onLateness?: (lateNs: number) => void;
  onClosed: (conn: ProxiedConnection) => void;
}

/**
 * One client connection and its own upstream connection, joined by two delay lines.
 * Bytes go through untouched; the tap only looks. FIN and RST travel through the delay line behind
 * the data, as they would on a network. Reading from a side pauses when what is held for the other
 * side passes the high-water mark, so a slow reader pushes back on Redis's output buffer instead of
 * growing the proxy.
 */
export class ProxiedConnection {
  readonly upstream: net.Socket;
  private readonly up: DelayLine;
  private readonly down: DelayLine;
  private readonly tapUp: TapAfterForward | undefined;
  private readonly tapDown: TapAfterForward | undefined;
  private clientPaused = false;
  private upstreamPaused = false;
  private closed = false;
  private linger: NodeJS.Timeout | undefined;

  constructor(
    readonly client: net.Socket,
    private readonly o: ConnectionOptions,
  ) {
    const clock = o.scheduler.clock;
    const acceptedNs = clock.nowNs();
    client.setNoDelay(true);
    this.upstream =
      o.upstream.kind === 'tcp'
        ? net.connect({ host: o.upstream.host, port: o.upstream.port, allowHalfOpen: true, noDelay: true })
        : net.connect({ path: o.upstream.path, allowHalfOpen: true });

    this.up = new DelayLine({
      scheduler: o.scheduler,
      sampleDelayNs: () => o.link.sampleNs('up'),
      bandwidthBps: () => o.link.bandwidthBps(),
      // A real client pays a SYN/SYN-ACK round trip before its first byte can leave.
      notBeforeNs: o.handshake ? acceptedNs + o.link.rttUs * 1000 : undefined,
      deliver: (chunks, endOffset, nowNs) => {
        write(this.upstream, chunks);
        this.tapUp?.delivered(endOffset, nowNs);
        this.relieve();
      },
      onEnd: (kind) => this.finish(this.upstream, kind),
      onLateness: o.onLateness,
    });
    this.down = new DelayLine({
      scheduler: o.scheduler,
      sampleDelayNs: () => o.link.sampleNs('down'),
      bandwidthBps: () => o.link.bandwidthBps(),
      deliver: (chunks, endOffset, nowNs) => {
        write(client, chunks);
        this.tapDown?.delivered(endOffset, nowNs);
        this.relieve();
      },
      onEnd: (kind) => this.finish(client, kind),
      onLateness: o.onLateness,
    });

    const tap = o.tap;
    if (tap) {
      this.tapUp = new TapAfterForward(this.up, (c, t) => tap.upChunk(c, t), (e, t) => tap.upDelivered(e, t));
      this.tapDown = new TapAfterForward(this.down, (c, t) => tap.downChunk(c, t), (e, t) => tap.downDelivered(e, t));
    }
    const upIn = this.tapUp ?? this.up;
    const downIn = this.tapDown ?? this.down;
    client.on('data', (chunk: Buffer) => {
      const now = clock.nowNs();
      upIn.push(chunk, now);
      if (this.up.pendingBytes + this.upstream.writableLength > o.highWaterBytes) {
        this.clientPaused = true;
        client.pause();
      }
    });
    this.upstream.on('data', (chunk: Buffer) => {
      const now = clock.nowNs();
      downIn.push(chunk, now);
      if (this.down.pendingBytes + client.writableLength > o.highWaterBytes) {
        this.upstreamPaused = true;
        this.upstream.pause();
      }
    });
    client.on('drain', () => this.relieve());
    this.upstream.on('drain', () => this.relieve());

    client.on('end', () => this.up.end('end', clock.nowNs()));
    this.upstream.on('end', () => this.down.end('end', clock.nowNs()));
    client.on('error', (err: NodeJS.ErrnoException) => {
      o.log(`conn ${o.id}: client ${err.code ?? err.message}`);
      this.clientFailed = true;
      this.down.destroy();
      this.up.end('reset', clock.nowNs());
      // Its FIN went up already: a reset still has to follow, or a half-open upstream waits forever.
      if (this.upstream.writableEnded) this.finish(this.upstream, 'reset');
    });
    this.upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (this.upstream.connecting || !this.everConnected) {
        // Nothing reached Redis: tell the client at once rather than after a fake delay.
        o.log(`conn ${o.id}: upstream ${describe(o.upstream)} failed: ${err.code ?? err.message}`);
        this.up.destroy();
        this.down.destroy();
        client.destroy();
        return;
      }
      o.log(`conn ${o.id}: upstream ${err.code ?? err.message}`);
      this.upstreamFailed = true;
      this.up.destroy();
      this.down.end('reset', clock.nowNs());
      // Redis closed (FIN, already passed down) and then refused more bytes: on a network the
      // client's next segment would draw a RST, so a half-open client must not wait for the linger.
      if (this.client.writableEnded) this.finish(this.client, 'reset');
    });
    this.upstream.setTimeout(o.connectTimeoutMs, () => {
      if (this.everConnected) return;
      o.log(`conn ${o.id}: upstream ${describe(o.upstream)} did not answer within ${o.connectTimeoutMs} ms`);
      this.upstream.destroy();
      client.destroy();
    });
    this.upstream.on('connect', () => {
      this.everConnected = true;
      this.upstream.setTimeout(0);
    });
    client.on('close', () => this.maybeClosed());
    this.upstream.on('close', () => this.maybeClosed());
  }

  private everConnected = false;
  /** A side failed (RST, EPIPE): the other side gets a reset after its data, never just a FIN. */
  private clientFailed = false;
  private upstreamFailed = false;

  /** Bytes held for delivery in both directions (delay lines plus socket buffers). */
  get heldBytes(): number {
    return this.up.pendingBytes + this.down.pendingBytes + this.upstream.writableLength + this.client.writableLength;
  }

  /** Closes both sides now (proxy shutdown). */
  destroy(): void {
    this.up.destroy();
    this.down.destroy();
    this.client.destroy();
    this.upstream.destroy();
  }

  private relieve(): void {
    const low = this.o.highWaterBytes / 2;
    if (this.clientPaused && this.up.pendingBytes + this.upstream.writableLength < low) {
      this.clientPaused = false;
      this.client.resume();
    }
    if (this.upstreamPaused && this.down.pendingBytes + this.client.writableLength < low) {
      this.upstreamPaused = false;
      this.upstream.resume();
    }
  }

  private finish(socket: net.Socket, kind: EndKind): void {
    if (socket.destroyed) return;
    const peerFailed = socket === this.client ? this.upstreamFailed : this.clientFailed;
    if (kind === 'end' && !peerFailed) {
      socket.end();
      // If the far side never closes its half, do not hold the connection forever.
      this.linger ??= setTimeout(() => this.destroy(), 30_000).unref();
    } else {
      reset(socket);
    }
  }

  private maybeClosed(): void {
    if (this.closed) return;
    if (this.client.destroyed && this.upstream.destroyed) {
      this.closed = true;
      if (this.linger) clearTimeout(this.linger);
      this.up.destroy();
      this.down.destroy();
      this.o.tap?.close(this.o.scheduler.clock.nowNs());
      this.o.onClosed(this);
      return;
    }
    // One side is gone for good: once the other has nothing left to receive, close it too.
    if (this.client.destroyed && this.up.queued === 0 && !this.upstream.destroyed && this.upstream.writableEnded) return;
    if (this.client.destroyed && this.up.queued === 0 && !this.upstream.writableEnded) this.upstream.end();
    if (this.upstream.destroyed && this.down.queued === 0 && !this.client.writableEnded) this.client.end();
    this.linger ??= setTimeout(() => this.destroy(), 30_000).unref();
  }
}

function write(socket: net.Socket, chunks: Buffer[]): void {
  if (socket.destroyed || socket.writableEnded) return;
  if (chunks.length === 1) {
    socket.write(chunks[0]!);
    return;
  }
  socket.cork();
  for (const c of chunks) socket.write(c);
  socket.uncork();
}

/**
 * Closes with a RST where one can be sent. Not after end(): while that shutdown is pending libuv
 * refuses the reset (EINVAL) and Node then drops the handle without closing it, leaking the fd and
 * never emitting 'close'. Not on unix sockets: they have no RST (resetAndDestroy throws).
 */
function reset(socket: net.Socket): void {
  if (socket.writableEnded) {
    socket.destroy();
    return;
  }
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

function describe(e: Endpoint): string {
  return e.kind === 'unix' ? `unix:${e.path}` : `${e.host}:${e.port}`;
}
