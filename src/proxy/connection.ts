import net from 'node:net';
import type { EndKind } from '../link/delay-line.js';
import type { LinkState } from '../link/link-state.js';
import type { Scheduler } from '../link/scheduler.js';
import type { ConnectionTap } from '../tap/types.js';
import type { Endpoint } from './endpoint.js';
import { ByteChain } from '../stage/byte-chain.js';
import { FrameChain } from '../stage/frame-chain.js';
import { LINK_STAGE_NAME, LinkStage } from '../stage/link-stage.js';
import type { ByteSink, ConnectionContext, StageFactory } from '../stage/types.js';
import { SocketSink } from './socket-sink.js';
import type { StageRegistry, StagedConnection } from './stage-registry.js';
import { TapAfterForward, type ChunkTarget } from './tap-after.js';

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
  /** The proxy's stages; none beyond the link when absent. */
  stages?: StageRegistry;
}

/**
 * One client connection and its own upstream connection, joined by one chain of stages per
 * direction (docs/architecture.md): the link (delay line and bandwidth cap) first, then any byte
 * stages, and frame stages ahead of both when the proxy has any. The tap only looks. FIN and RST
 * travel through the chain behind the data, as they would on a network. Reading from a side pauses when what is held for the other
 * side passes the high-water mark, so a slow reader pushes back on Redis's output buffer instead of
 * growing the proxy.
 */
export class ProxiedConnection implements StagedConnection {
  readonly upstream: net.Socket;
  private readonly upLink: LinkStage;
  private readonly downLink: LinkStage;
  private readonly upChain: ByteChain;
  private readonly downChain: ByteChain;
  /** Only on a connection accepted while a frame stage was registered. */
  private readonly frames: FrameChain | undefined;
  private readonly tapUp: TapAfterForward | undefined;
  private readonly tapDown: TapAfterForward | undefined;
  private readonly context: ConnectionContext;
  private settleClosed: () => void = () => undefined;
  private clientPaused = false;
  private upstreamPaused = false;
  private closed = false;
  private linger: NodeJS.Timeout | undefined;

  /** The proxy's connection id (as in /connections). */
  get id(): number {
    return this.o.id;
  }

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
    this.context = {
      id: o.id,
      nowNs: () => clock.nowNs(),
      close: (kind) => this.closeFromStage(kind),
      closed: new Promise<void>((resolve) => (this.settleClosed = resolve)),
    };

    const upSink = new SocketSink(
      this.upstream,
      (endOffset, nowNs) => {
        this.tapUp?.delivered(this.frames ? this.frames.clientOffsetAt(endOffset) : endOffset, nowNs);
        this.relieve();
      },
      (kind) => this.finish(this.upstream, kind),
    );
    const downSink = new SocketSink(
      client,
      (endOffset, nowNs) => {
        this.tapDown?.delivered(endOffset, nowNs);
        this.relieve();
      },
      (kind) => this.finish(client, kind),
    );
    this.upChain = new ByteChain(this.context, upSink);
    this.downChain = new ByteChain(this.context, downSink);
    let upLink: LinkStage | undefined;
    let downLink: LinkStage | undefined;
    const linkOptions = { scheduler: o.scheduler, bandwidthBps: () => o.link.bandwidthBps(), onLateness: o.onLateness };
    this.upChain.add({
      name: LINK_STAGE_NAME,
      create: (_c, next) =>
        (upLink = new LinkStage(
          {
            ...linkOptions,
            sampleDelayNs: () => o.link.sampleNs('up'),
            // A real client pays a SYN/SYN-ACK round trip before its first byte can leave.
            notBeforeNs: o.handshake ? acceptedNs + o.link.rttUs * 1000 : undefined,
          },
          next,
        )),
    });
    this.downChain.add({
      name: LINK_STAGE_NAME,
      create: (_c, next) => (downLink = new LinkStage({ ...linkOptions, sampleDelayNs: () => o.link.sampleNs('down') }, next)),
    });
    this.upLink = upLink!;
    this.downLink = downLink!;
    for (const f of o.stages?.chain('up') ?? []) this.addStage(f, Infinity);
    for (const f of o.stages?.chain('down') ?? []) this.addStage(f, Infinity);

    const tap = o.tap;
    let downTarget: ChunkTarget = this.downChain;
    if (tap) {
      this.tapDown = new TapAfterForward(this.downChain, (c, t) => tap.downChunk(c, t), (e, t) => tap.downDelivered(e, t));
      downTarget = this.tapDown;
    }
    if (o.stages?.hasFrameStages) {
      this.frames = new FrameChain({
        conn: this.context,
        scheduler: o.scheduler,
        upDelayNs: () => o.link.sampleNs('up'),
        up: this.upChain,
        down: { push: (c, t) => downTarget.push(c, t), end: (k, t) => this.downChain.end(k, t) },
        log: o.log,
      });
      for (const f of o.stages.chain('frame')) this.addStage(f, Infinity);
    }
    const frames = this.frames;
    const upEntry: ChunkTarget & ByteSink = frames ?? this.upChain;
    if (tap) this.tapUp = new TapAfterForward(upEntry, (c, t) => tap.upChunk(c, t), (e, t) => tap.upDelivered(e, t));
    const upIn = this.tapUp ?? upEntry;
    const downIn: ChunkTarget = frames ? { push: (c, t) => frames.pushReply(c, t) } : downTarget;
    const upChain = this.upChain;
    const downChain = this.downChain;
    client.on('data', (chunk: Buffer) => {
      const now = clock.nowNs();
      upIn.push(chunk, now);
      if (upChain.pendingBytes + (frames ? frames.upHeldBytes : 0) + this.upstream.writableLength > o.highWaterBytes) {
        this.clientPaused = true;
        client.pause();
      }
    });
    this.upstream.on('data', (chunk: Buffer) => {
      const now = clock.nowNs();
      downIn.push(chunk, now);
      if (downChain.pendingBytes + (frames ? frames.downHeldBytes : 0) + client.writableLength > o.highWaterBytes) {
        this.upstreamPaused = true;
        this.upstream.pause();
      }
    });
    client.on('drain', () => this.relieve());
    this.upstream.on('drain', () => this.relieve());

    const upEnd = (kind: EndKind): void => upEntry.end(kind, clock.nowNs());
    const downEnd = (kind: EndKind): void => (frames ? frames.endReply(kind, clock.nowNs()) : downChain.end(kind, clock.nowNs()));
    client.on('end', () => upEnd('end'));
    this.upstream.on('end', () => downEnd('end'));
    client.on('error', (err: NodeJS.ErrnoException) => {
      o.log(`conn ${o.id}: client ${err.code ?? err.message}`);
      this.clientFailed = true;
      this.downChain.destroy();
      upEnd('reset');
      // Its FIN went up already: a reset still has to follow, or a half-open upstream waits forever.
      if (this.upstream.writableEnded) this.finish(this.upstream, 'reset');
    });
    this.upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (this.upstream.connecting || !this.everConnected) {
        // Nothing reached Redis: tell the client at once rather than after a fake delay.
        o.log(`conn ${o.id}: upstream ${describe(o.upstream)} failed: ${err.code ?? err.message}`);
        this.destroyStages();
        client.destroy();
        return;
      }
      o.log(`conn ${o.id}: upstream ${err.code ?? err.message}`);
      this.upstreamFailed = true;
      this.upChain.destroy();
      downEnd('reset');
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

  /** Splices a stage into this connection's chain; `indexInChain` counts the user's stages only. */
  addStage(stage: StageFactory, indexInChain: number): void {
    if (stage.kind === 'byte') {
      // The link stays first in each direction.
      const chain = stage.direction === 'up' ? this.upChain : this.downChain;
      chain.add(stage, indexInChain + 1);
      return;
    }
    // A connection accepted without frame stages was never framed: it cannot start mid-stream.
    this.frames?.add(stage.name, stage.create(this.context), indexInChain);
  }

  removeStage(stage: StageFactory): void {
    if (stage.kind === 'frame') {
      this.frames?.remove(stage.name);
      return;
    }
    const chain = stage.direction === 'up' ? this.upChain : this.downChain;
    chain.remove(stage.name, this.o.scheduler.clock.nowNs());
    this.relieve();
  }

  /** Stage names on this connection, per chain (the link first in each direction). */
  stageNames(): { up: string[]; down: string[]; frame: string[] } {
    return { up: this.upChain.names, down: this.downChain.names, frame: this.frames?.names ?? [] };
  }

  private everConnected = false;
  /** A side failed (RST, EPIPE): the other side gets a reset after its data, never just a FIN. */
  private clientFailed = false;
  private upstreamFailed = false;

  /** Bytes held for delivery in both directions (all stages plus socket buffers). */
  get heldBytes(): number {
    return this.upHeld() + this.downHeld() + this.upstream.writableLength + this.client.writableLength;
  }

  /** Closes both sides now (proxy shutdown). */
  destroy(): void {
    this.destroyStages();
    this.client.destroy();
    this.upstream.destroy();
  }

  private destroyStages(): void {
    this.upChain.destroy();
    this.downChain.destroy();
    this.frames?.destroy();
  }

  private upHeld(): number {
    return this.upChain.pendingBytes + (this.frames ? this.frames.upHeldBytes : 0);
  }

  private downHeld(): number {
    return this.downChain.pendingBytes + (this.frames ? this.frames.downHeldBytes : 0);
  }

  /** A stage asked to close: FIN after what the chains hold, or RST on both sides now. */
  private closeFromStage(kind: EndKind): void {
    const now = this.o.scheduler.clock.nowNs();
    if (kind === 'reset') {
      this.destroyStages();
      reset(this.client);
      reset(this.upstream);
      return;
    }
    this.upChain.end('end', now);
    this.downChain.end('end', now);
  }

  private relieve(): void {
    const low = this.o.highWaterBytes / 2;
    if (this.clientPaused && this.upHeld() + this.upstream.writableLength < low) {
      this.clientPaused = false;
      this.client.resume();
    }
    if (this.upstreamPaused && this.downHeld() + this.client.writableLength < low) {
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
      this.destroyStages();
      this.settleClosed();
      this.o.tap?.close(this.o.scheduler.clock.nowNs());
      this.o.onClosed(this);
      return;
    }
    // One side is gone for good: once the other has nothing left to receive, close it too.
    const upIdle = this.upLink.queued === 0 && this.upHeld() === 0;
    const downIdle = this.downLink.queued === 0 && this.downHeld() === 0;
    if (this.client.destroyed && upIdle && !this.upstream.destroyed && this.upstream.writableEnded) return;
    if (this.client.destroyed && upIdle && !this.upstream.writableEnded) this.upstream.end();
    if (this.upstream.destroyed && downIdle && !this.client.writableEnded) this.client.end();
    this.linger ??= setTimeout(() => this.destroy(), 30_000).unref();
  }
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
